import type { StopCondition, StopReason, TaskResult } from 'dualloop';
import type { TurnInput, TurnOutput } from '../../src/contracts/turn-protocol.js';
import { freshProgress } from '../../src/strategies/react.js';

/** Small bounds, so that a walk reaches each of them; a normal turn spends 2 tokens. */
export const TURN_BOUNDS = { maxTurns: 3, maxToolCalls: 3, maxRuntimeMs: 1_000, maxTokens: 7 };

export function turnInput(wrapUpOnBound = true): TurnInput {
  return {
    runId: 'run',
    // Typed, with one repair: a walk reaches both a repair and invalid_output within maxTurns.
    task: { id: 'task', index: 0, description: 'do it', bounds: { ...TURN_BOUNDS, maxOutputRepairs: 1 }, output: { type: 'object' } },
    settings: { wrapUpOnBound, steeringMode: 'one-at-a-time', followUpMode: 'one-at-a-time' },
    budget: { tokensBefore: 0, costBefore: 0 },
    progress: freshProgress([{ role: 'user', content: 'do it' }]),
    queues: { steering: [], followUp: [] },
    modelCallIndex: 0,
    startedAt: 0,
  };
}

export const stop = (reason: StopReason): StopCondition => (reason === 'error' ? { reason, code: 'internal_error', detail: reason, at: 1 } : { reason, detail: reason, at: 1 });

export function taskOutput(reason: StopReason): TurnOutput {
  const result: TaskResult = {
    taskId: 'task-1',
    index: 0,
    description: 'do it',
    stop: stop(reason),
    turns: [],
    turnCount: 1,
    toolCalls: 0,
    output: '',
    usage: { inputTokens: 1, outputTokens: 1 },
    costUsd: 0,
    runtimeMs: 1,
  };
  return { result, delivered: [], modelCallIndex: 1, resumePoint: { progress: turnInput().progress, queues: { steering: [], followUp: [] }, delivered: [], modelCallIndex: 0 } };
}
