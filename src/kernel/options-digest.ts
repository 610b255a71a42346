import { createHash } from 'node:crypto';
import { isToolSource } from '../contracts/tool.js';
import type { KernelOptions } from './options.js';

/**
 * A digest of what shapes a run's behaviour — model identity, tools, system prompt, bounds and
 * loop settings — without secrets or functions. A resume with a different digest still runs,
 * with a warning event, since code (tools, hooks) cannot be compared.
 */
export function optionsDigest(options: KernelOptions): string {
  const shape = {
    model: { provider: options.model.provider, modelId: options.model.modelId },
    // A source's tools are known only once a run opens it: its name stands for them.
    tools: (options.tools ?? []).map((tool) => (isToolSource(tool) ? { source: tool.name } : { name: tool.name, description: tool.description, schema: tool.jsonSchema })),
    system: options.system ?? null,
    bounds: options.bounds ?? null,
    toolExecution: options.toolExecution ?? null,
    wrapUpOnBound: options.wrapUpOnBound ?? null,
    onTaskStop: options.onTaskStop ?? null,
    loopDetection: options.loopDetection ?? null,
    strategy: options.strategy ?? null,
    planner: options.planner === undefined ? null : { provider: options.planner.provider, modelId: options.planner.modelId },
    goal: options.goal ?? null,
    autoRules:
      options.autoRules === undefined
        ? null
        : { ...options.autoRules, classify: typeof options.autoRules.classify === 'object' ? options.autoRules.classify.modelId : (options.autoRules.classify ?? null) },
  };
  return createHash('sha256').update(JSON.stringify(shape)).digest('hex');
}
