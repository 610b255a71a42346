import { describe, expect, it } from 'vitest';
import { createModuleGraph, isProjectFile, walk } from '../support/import-graph.js';

/** Everything `entry` reaches through any import (type-only and dynamic ones included). */
function reachedFrom(entry: string): { files: string[]; packages: string[] } {
  const reached = [...walk(createModuleGraph(), [entry]).keys()];
  return { files: reached.filter(isProjectFile).sort(), packages: reached.filter((target) => !isProjectFile(target)).sort() };
}

describe('loopEngine has no XState in its module graph', () => {
  const graph = reachedFrom('src/engine/loop-engine.ts');

  it('reads the graph (sanity: it reaches the tools it reuses)', () => {
    expect(graph.files).toContain('src/engine/loop-engine.ts');
    expect(graph.files).toContain('src/tools/execute-tool.ts');
    expect(graph.files).toContain('src/engine/engine-shell.ts');
  });

  it('imports no xstate package, not even a type', () => {
    expect(graph.packages.filter((name) => name === 'xstate' || name.startsWith('xstate/') || name.startsWith('@xstate/'))).toEqual([]);
  });

  it('reaches neither the machines nor the kernel runtime', () => {
    expect(graph.files.filter((file) => file.startsWith('machines/') || file.startsWith('src/kernel/') || file.startsWith('src/loop/'))).toEqual([]);
  });

  it('would notice one (the scanner sees the kernel engine import xstate through the kernel)', () => {
    expect(reachedFrom('src/engine/create-engine.ts').packages).toContain('xstate');
  });
});
