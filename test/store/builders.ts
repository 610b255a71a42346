// Plain data for store tests: what the kernel hands to a store, built by hand.
import type { CheckpointEnvelope, KernelEvent, RunRecord, StopCondition, StopReason, TaskResult, ToolResult, WorkflowResult } from 'dualloop';

export const T0 = 1_700_000_000_000;
const BOUNDS = { maxTurns: 10, maxToolCalls: 20, maxRuntimeMs: 60_000 };

export function runRecord(runId: string, overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    runId,
    optionsDigest: `digest-of-${runId}`,
    tasks: [
      { id: 'task-1', index: 0, description: 'first', bounds: BOUNDS },
      { id: 'task-2', index: 1, description: 'second', bounds: { ...BOUNDS, maxTurns: 3 } },
    ],
    createdAt: T0,
    ...overrides,
  };
}

export function stop(reason: StopReason, detail = `stopped: ${reason}`, bound?: StopCondition['bound']): StopCondition {
  return { reason, detail, at: T0 + 500, ...(bound === undefined ? {} : { bound }) };
}

export function taskResult(index: number, reason: StopReason = 'planner_stopped', bound?: StopCondition['bound']): TaskResult {
  return {
    taskId: `task-${index + 1}`,
    index,
    description: index === 0 ? 'first' : 'second',
    stop: stop(reason, `task ${index + 1}: ${reason}`, bound),
    turns: [
      {
        turn: 1,
        assistantText: '',
        toolCalls: [{ id: `call-${index}-1`, name: 'lookup', args: { q: 'x' }, result: { found: true }, isError: false }],
        usage: { inputTokens: 10, outputTokens: 4 },
        costUsd: 0.001,
        runtimeMs: 12,
      },
      { turn: 2, assistantText: 'done', toolCalls: [], stop: stop(reason), usage: { inputTokens: 12, outputTokens: 6 }, costUsd: 0.002, runtimeMs: 8 },
    ],
    turnCount: 2,
    toolCalls: 1,
    output: 'done',
    usage: { inputTokens: 22, outputTokens: 10 },
    costUsd: 0.003,
    runtimeMs: 20,
  };
}

const METRICS = { workflowSteps: 1, turns: 2, toolCalls: 1, inputTokens: 22, outputTokens: 10, costUsd: 0.003, runtimeMs: 20 };

/** A checkpoint with `done` finished tasks and, for a turn checkpoint, the second task in progress. */
export function envelope(runId: string, sequence: number, kind: 'task' | 'turn' = 'task', done = 1): CheckpointEnvelope {
  const results = Array.from({ length: done }, (_, index) => taskResult(index));
  return {
    version: 1,
    runId,
    kind,
    sequence,
    savedAt: T0 + sequence,
    eventSeq: sequence * 10,
    progress: {
      results,
      metrics: { ...METRICS, workflowSteps: done },
      queues: { steering: [{ id: 1, content: 'steer me' }], followUp: [] },
      modelCallIndex: 2 * done + (kind === 'turn' ? 1 : 0),
      elapsedMs: 40,
      ...(kind === 'turn'
        ? {
            active: {
              task: { id: `task-${done + 1}`, index: done, description: 'second', bounds: BOUNDS },
              point: {
                progress: {
                  messages: [{ role: 'user', content: 'second', source: 'task' }],
                  turns: [taskResult(done).turns[0]!],
                  toolCalls: 1,
                  usage: { inputTokens: 10, outputTokens: 4 },
                  costUsd: 0.001,
                  elapsedMs: 12,
                  repeat: { key: '', count: 0 },
                  followUpDue: false,
                },
                queues: { steering: [], followUp: [] },
                delivered: [],
                modelCallIndex: 3,
              },
            },
          }
        : {}),
    },
  };
}

export function toolResult(toolCallId: string, result: unknown = { rows: [1, 2, 3], nested: { ok: true } }): ToolResult {
  return { toolCallId, name: 'lookup', args: { q: toolCallId }, result, content: JSON.stringify(result), isError: false, terminate: false, executed: true, usedSlot: true };
}

export function event(runId: string, seq: number, type: 'turn_start' | 'warning' = 'turn_start'): KernelEvent {
  const stamp = { runId, seq, at: T0 + seq };
  return type === 'warning' ? { type, message: `warning ${seq}`, ...stamp } : { type, taskId: 'task-1', taskIndex: 0, turn: seq, ...stamp };
}

export function policyEvent(runId: string, seq: number, decision: 'allow' | 'deny' | 'require_approval', reason: string): KernelEvent {
  return {
    type: 'policy_decision',
    subject: 'tool',
    taskId: 'task-1',
    taskIndex: 0,
    toolCallId: `call-${seq}`,
    toolName: 'deploy',
    decision,
    reason,
    ...(decision === 'require_approval' ? { approvalId: `call-${seq}` } : {}),
    runId,
    seq,
    at: T0 + seq,
  };
}

export function workflowResult(runId: string, reason: StopReason = 'goal_achieved', tasks: readonly TaskResult[] = [taskResult(0), taskResult(1)]): WorkflowResult {
  return { runId, stop: stop(reason), tasks, metrics: { ...METRICS, workflowSteps: tasks.length } };
}
