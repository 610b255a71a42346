/**
 * The import graph of the sources, read by a parser (test/support/import-graph.ts), against the
 * layering rules (ADR 0240, ADR 0241): no layer the kernel composes imports the kernel, nothing the
 * kernel depends on depends on it, and the machines import only xstate, contracts and pure reducers.
 * Every rule is also run on sources with one forbidden import added, so it cannot pass vacuously.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createModuleGraph, importsOf, ROOT, walk } from '../support/import-graph.js';
import { kernelBackEdges, kernelCycles, LOWER_LAYERS, machineViolations } from '../support/layer-rules.js';

const graph = createModuleGraph();

/** The sources with one line added at the top of `file`. */
function withLine(file: string, line: string) {
  return createModuleGraph({ [file]: `${line}\n${readFileSync(join(ROOT, file), 'utf8')}` });
}

describe('the graph reader', () => {
  it('sees static, type-only, re-exported and dynamic imports and import types, and which run', () => {
    const source = [
      "import { a } from './a.js';",
      "import type { B } from './b.js';",
      "import { type C } from './c.js';",
      "export type { D } from './d.js';",
      "export * from './e.js';",
      "import 'node:fs';",
      "const f = await import('./f.js');",
      "type G = import('./g.js').G;",
    ].join('\n');
    expect(importsOf('src/tools/example.ts', source)).toEqual([
      { target: 'src/tools/a.ts', kind: 'static' },
      { target: 'src/tools/b.ts', kind: 'type' },
      // With verbatimModuleSyntax an import of types only by name is still an import.
      { target: 'src/tools/c.ts', kind: 'static' },
      { target: 'src/tools/d.ts', kind: 'type' },
      { target: 'src/tools/e.ts', kind: 'static' },
      { target: 'node:fs', kind: 'static' },
      { target: 'src/tools/f.ts', kind: 'dynamic' },
      { target: 'src/tools/g.ts', kind: 'type' },
    ]);
  });

  it('walks the real sources (sanity: the store reaches the checkpoint writer and zod, the kernel reaches the machines)', () => {
    const fromStore = walk(graph, ['src/checkpoint/sqlite/sqlite-store.ts']);
    expect(fromStore.has('src/checkpoint/sqlite/sqlite-schema.ts')).toBe(true);
    expect(fromStore.has('zod')).toBe(true);
    expect(walk(graph, ['src/kernel/create-kernel.ts']).has('machines/turn.machine.ts')).toBe(true);
  });
});

describe('no back-edge into the kernel', () => {
  it('no layer the kernel composes reaches src/kernel/, through any import', () => {
    expect(LOWER_LAYERS).toEqual(expect.arrayContaining(['src/checkpoint', 'src/tools', 'src/events', 'src/providers', 'src/policy', 'src/redaction']));
    expect(kernelBackEdges(graph)).toEqual([]);
  });

  it('nothing the kernel depends on depends on the kernel (no cycle through it)', () => {
    expect(kernelCycles(graph)).toEqual([]);
  });

  it('would report a type-only import of the kernel in a tool file', () => {
    const broken = withLine('src/tools/tool-results.ts', "import type { KernelDeps } from '../kernel/kernel-deps.js';");
    expect(kernelBackEdges(broken)).toContain('src/tools/tool-results.ts → src/kernel/kernel-deps.ts');
  });

  it('would report a dynamic import of the kernel reached through another file of a store', () => {
    const broken = withLine('src/contracts/stop-rules.ts', "export const later = () => import('../kernel/tasks.js');");
    expect(kernelBackEdges(broken, ['src/checkpoint']).some((chain) => chain.endsWith('src/contracts/stop-rules.ts → src/kernel/tasks.ts'))).toBe(true);
  });

  it('would report a part of the kernel that imports the kernel back', () => {
    const broken = withLine('src/strategies/react.ts', "import type { RunRuntime } from '../kernel/run-runtime.js';");
    expect(kernelCycles(broken)).toContain('src/strategies/react.ts → src/kernel/run-runtime.ts');
  });
});

describe('the machines import only xstate, contracts and pure reducers', () => {
  it('holds for the machines as they are', () => {
    expect(machineViolations(graph)).toEqual([]);
  });

  it('would report a node: module, directly or through a reducer', () => {
    expect(machineViolations(withLine('machines/turn.machine.ts', "import { setTimeout } from 'node:timers';"))).toContain('imports node:timers: machines/turn.machine.ts');
    const throughReducer = machineViolations(withLine('src/loop/tool-call-key.ts', "import { createHash } from 'node:crypto';"));
    expect(throughReducer.some((problem) => problem.startsWith('reaches node:crypto: machines/') && problem.endsWith('src/loop/tool-call-key.ts → node:crypto'))).toBe(true);
  });

  it('would report a store, a tool, an event sink or the kernel, even as a type', () => {
    for (const line of [
      "import type { CheckpointWriter } from '../src/checkpoint/checkpoint-writer.js';",
      "import type { ToolRun } from '../src/tools/tool-port.js';",
      "import type { EventSink } from '../src/events/event-sink.js';",
      "import type { KernelDeps } from '../src/kernel/kernel-deps.js';",
    ]) {
      expect(machineViolations(withLine('machines/workflow.machine.ts', line)).length).toBeGreaterThan(0);
    }
  });

  it('would report a contract that runs zod (a contract type is fine, its runtime schema is not)', () => {
    expect(machineViolations(withLine('machines/turn.machine.ts', "import type { StopReason } from '../src/contracts/stop.js';"))).toEqual([]);
    const runtime = machineViolations(withLine('machines/turn.machine.ts', "import { StopReason } from '../src/contracts/stop.js';"));
    expect(runtime).toContain('runs zod: machines/turn.machine.ts → src/contracts/stop.ts → src/contracts/stop-reason.ts → zod');
  });
});
