import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Every module specifier a source file names: static imports and re-exports (type-only included), dynamic imports. */
function specifiers(source: string): string[] {
  const found: string[] = [];
  const patterns = [/\b(?:import|export)\s[^;'"]*?\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*['"]([^'"]+)['"]/g, /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) found.push(match[1]!);
  return found;
}

/** The module graph of a source file: every project file it reaches and every package it names. */
function moduleGraph(entry: string): { files: string[]; packages: Map<string, string[]> } {
  const files = new Set<string>();
  const packages = new Map<string, string[]>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const specifier of specifiers(readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('.')) {
        visit(resolve(dirname(file), specifier).replace(/\.js$/, '.ts'));
      } else {
        packages.set(specifier, [...(packages.get(specifier) ?? []), relative(ROOT, file)]);
      }
    }
  };
  visit(resolve(ROOT, entry));
  return { files: [...files].map((file) => relative(ROOT, file)).sort(), packages };
}

describe('loopEngine has no XState in its module graph', () => {
  const graph = moduleGraph('src/engine/loop-engine.ts');

  it('reads the graph (sanity: it reaches the tools it reuses)', () => {
    expect(graph.files).toContain('src/engine/loop-engine.ts');
    expect(graph.files).toContain('src/tools/execute-tool.ts');
    expect(graph.files).toContain('src/engine/engine-shell.ts');
  });

  it('imports no xstate package, not even a type', () => {
    const xstate = [...graph.packages.entries()].filter(([name]) => name === 'xstate' || name.startsWith('xstate/') || name.startsWith('@xstate/'));
    expect(xstate).toEqual([]);
  });

  it('reaches neither the machines nor the kernel runtime', () => {
    expect(graph.files.filter((file) => file.startsWith('machines/') || file.startsWith('src/kernel/') || file.startsWith('src/loop/'))).toEqual([]);
  });

  it('would notice one (the scanner sees the kernel engine import xstate through the kernel)', () => {
    const kernelGraph = moduleGraph('src/engine/create-engine.ts');
    expect([...kernelGraph.packages.keys()]).toContain('xstate');
  });
});
