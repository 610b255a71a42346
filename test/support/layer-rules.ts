/**
 * The layering rules of ADR 0240 and ADR 0241, as functions over a module graph, so that a test can
 * apply them both to the sources and to sources with a forbidden import added.
 */
import { atRunTime, describeChain, isProjectFile, sourceFiles, walk, type ModuleGraph } from './import-graph.js';

/** The layers the kernel composes: none of them imports `src/kernel/`, not even a type, not even through another file. */
export const LOWER_LAYERS = [
  'src/contracts',
  'src/graph',
  'src/delegation',
  'src/guardrails',
  'src/output',
  'src/loop',
  'src/stop',
  'src/policy',
  'src/tools',
  'src/events',
  'src/checkpoint',
  'src/redaction',
  'src/providers',
  'src/compaction',
  'src/audit',
  'src/telemetry',
  'src/strategies',
  'src/mcp',
] as const;

const inKernel = (target: string) => target.startsWith('src/kernel/');

/** Where a machine may reach, through any import: itself, the contracts and the pure reducers. */
const machineReach = (target: string) => target.startsWith('machines/') || target.startsWith('src/contracts/') || target.startsWith('src/loop/');

/** Chains from a lower layer into `src/kernel/`. */
export function kernelBackEdges(graph: ModuleGraph, layers: readonly string[] = LOWER_LAYERS): string[] {
  const reached = walk(graph, layers.flatMap((layer) => sourceFiles(layer)));
  return [...reached].filter(([target]) => inKernel(target)).map(([, chain]) => describeChain(chain));
}

/**
 * Chains that close a cycle through the kernel: a file outside `src/kernel/` that the kernel
 * depends on and that depends on the kernel in turn (the old `kernel-deps → options → strategy →
 * kernel-deps`). The kernel composes its parts; the parts never look back.
 */
export function kernelCycles(graph: ModuleGraph): string[] {
  const kernel = sourceFiles('src/kernel');
  const parts = [...walk(graph, kernel).keys()].filter((target) => isProjectFile(target) && !inKernel(target));
  const reached = walk(graph, parts);
  return [...reached].filter(([target]) => inKernel(target)).map(([, chain]) => describeChain(chain));
}

/**
 * What the machines must not import (ADR 0240), as chains:
 * - directly: anything but `xstate`, another machine, a contract or a pure reducer (`src/loop/`);
 * - through any import, type-only ones included: any project file outside `machines/`,
 *   `src/contracts/` and `src/loop/` (no store, tool, provider, event sink, kernel), any `node:`
 *   module, any package but `xstate` and `zod` (the contracts' types are zod's);
 * - at run time: any package but `xstate` (so the contracts and reducers a machine runs are pure).
 */
export function machineViolations(graph: ModuleGraph): string[] {
  const machines = sourceFiles('machines');
  const problems: string[] = [];
  for (const file of machines) {
    for (const edge of graph.edgesOf(file)) {
      if (edge.target !== 'xstate' && !machineReach(edge.target)) problems.push(`imports ${edge.target}: ${file}`);
    }
  }
  for (const [target, chain] of walk(graph, machines)) {
    const allowed = isProjectFile(target) ? machineReach(target) : target === 'xstate' || target === 'zod';
    if (!allowed) problems.push(`reaches ${target}: ${describeChain(chain)}`);
  }
  for (const [target, chain] of walk(graph, machines, atRunTime)) {
    if (!isProjectFile(target) && target !== 'xstate') problems.push(`runs ${target}: ${describeChain(chain)}`);
  }
  return problems;
}
