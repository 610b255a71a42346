import { cleanRunId } from '../kernel/run-ids.js';
import type { Message } from '../contracts/messages.js';
import type { Model } from '../contracts/model.js';
import { ConfigError } from '../errors.js';
import { buildKernel } from '../kernel/create-kernel.js';
import type { KernelOptions } from '../kernel/options.js';
import { describeRequest } from './engine-input.js';
import { createEngineShell, type StartRun } from './engine-shell.js';
import { engineStrategy } from './engine-strategy.js';
import { conversationAfter, engineEvents, engineOutput } from './kernel-events.js';
import type { EngineAdapter } from './types.js';

/** Kernel options about the outer loop's task list, which an engine run builds from its input. */
const REFUSED_OPTIONS = ['tasks', 'goal', 'strategy', 'planner', 'autoRules'] as const;

/**
 * The `dualloop` engine: the XState kernel behind the EngineAdapter contract. Takes the options of
 * `createKernel`, validated once, here — except those about the task list (`tasks`, `goal`,
 * `strategy`…): each `stream()` is one run of one task, built from its input (ADR 0050).
 * Everything else the kernel does applies: bounds, hooks, policy, store, events.
 */
export function createEngine(options: KernelOptions): EngineAdapter {
  const refused = typeof options === 'object' && options !== null ? REFUSED_OPTIONS.filter((field) => (options as unknown as Record<string, unknown>)[field] !== undefined) : [];
  if (refused.length > 0) {
    throw new ConfigError({
      message: 'Invalid dualloop engine options',
      issues: refused.map((field) => ({ path: field, message: 'is not accepted: each stream() runs one task, built from its input' })),
    });
  }
  const calls = { base: 0, made: 0 };
  const transcripts = new Map<string, readonly Message[]>();
  const model = typeof options?.model?.call === 'function' ? numberedModel(options.model, calls) : options.model;
  const kernel = buildKernel({ ...options, model }, () => engineStrategy(transcripts));

  const start: StartRun = (transcript, signal, firstCallIndex) => {
    calls.base = firstCallIndex;
    calls.made = 0;
    const runId = cleanRunId(undefined, kernel.deps.redactor, 'engine options', 'engine');
    transcripts.set(runId, transcript);
    const run = kernel.start([describeRequest(transcript)], { runId, ...(signal === undefined ? {} : { signal }) });
    const finished = run.result.then((result) => {
      transcripts.delete(runId);
      return { output: engineOutput(result), messages: conversationAfter(transcript, result.tasks[0]), modelCalls: calls.made };
    });
    return { events: engineEvents(run), finished, cancel: () => run.abort('the stream was closed by its consumer') };
  };

  return createEngineShell('dualloop', kernel.deps.context.system, start);
}

/**
 * The kernel numbers model calls per run; an engine numbers them per conversation, so that a
 * deterministic model replays the same way across streams. Adds the conversation's offset.
 */
function numberedModel(model: Model, calls: { base: number; made: number }): Model {
  return {
    provider: model.provider,
    modelId: model.modelId,
    call: (request) => {
      calls.made += 1;
      return model.call({ ...request, callIndex: calls.base + request.callIndex });
    },
  };
}
