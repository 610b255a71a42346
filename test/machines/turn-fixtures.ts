import type { ModelResult, StopCondition, StopReason, TaskResult, ToolResult } from 'dualloop';
import type { TurnInput, TurnOutput } from '../../src/contracts/turn-protocol.js';
import { freshProgress } from '../../src/strategies/react.js';

export const BOUNDS = { maxTurns: 3, maxToolCalls: 3, maxRuntimeMs: 1_000 };

export function turnInput(wrapUpOnBound = true): TurnInput {
  return {
    runId: 'run',
    task: { id: 'task', index: 0, description: 'do it', bounds: BOUNDS },
    settings: { wrapUpOnBound, steeringMode: 'one-at-a-time', followUpMode: 'one-at-a-time' },
    budget: { tokensBefore: 0, costBefore: 0 },
    progress: freshProgress([{ role: 'user', content: 'do it' }]),
    queues: { steering: [], followUp: [] },
    modelCallIndex: 0,
    startedAt: 0,
  };
}

export const stop = (reason: StopReason): StopCondition => (reason === 'error' ? { reason, code: 'internal_error', detail: reason, at: 1 } : { reason, detail: reason, at: 1 });

export const textAnswer: ModelResult = { type: 'response', text: 'answer', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, costUsd: 0, finishReason: 'stop' };
export const toolAnswer: ModelResult = {
  type: 'response',
  text: '',
  toolCalls: [{ id: 'c1', name: 'step', args: {} }],
  usage: { inputTokens: 1, outputTokens: 1 },
  costUsd: 0,
  finishReason: 'tool_calls',
};
export const modelFailure: ModelResult = { type: 'failure', code: 'server_error', message: 'boom' };
export const toolResult: ToolResult = {
  toolCallId: 'c1',
  name: 'step',
  args: {},
  result: 'ok',
  content: 'ok',
  isError: false,
  terminate: false,
  executed: true,
  usedSlot: true,
};

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
