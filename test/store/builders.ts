// Plain data for store tests: what the kernel hands to a store, built by hand.
import type { CheckpointEntry, KernelEvent, Message, RunRecord, StopCondition, StopReason, TaskResult, TaskSpec, ToolResult, WorkflowResult } from 'dualloop';

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
  const fields = { detail, at: T0 + 500, ...(bound === undefined ? {} : { bound }) };
  return reason === 'error' ? { reason, code: 'store_call_failed', ...fields } : { reason, ...fields };
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

const QUEUES = { steering: [{ id: 1, content: 'steer me' }], followUp: [] };

/** The run record's task at `index`. */
export function taskSpec(index: number): TaskSpec {
  return runRecord('any').tasks[index]!;
}

/**
 * The entry the kernel writes when the task after `done − 1` finished ones ends: its result
 * committed at position `done − 1`, no task running, and a snapshot.
 */
export function taskEntry(runId: string, sequence: number, done = 1): CheckpointEntry {
  const metrics = { ...METRICS, workflowSteps: done };
  const workflow = { modelCallIndex: 2 * done, elapsedMs: 20 * done, queues: QUEUES };
  return {
    version: 2,
    runId,
    sequence,
    kind: 'task',
    savedAt: T0 + sequence,
    eventSeq: sequence * 10,
    position: { taskId: `task-${done}`, taskIndex: done - 1 },
    tasksDone: done,
    results: [taskResult(done - 1)],
    change: { ...workflow, metrics, active: null },
    snapshot: { ...workflow, metrics },
  };
}

/** The entry the kernel writes after turn `turn` (1 or 2) of the task that follows `done` finished ones. */
export function turnEntry(runId: string, sequence: number, done = 0, turn = 1): CheckpointEntry {
  const spec = taskSpec(done);
  const turns = taskResult(done).turns.slice(0, turn);
  const first: Message = { role: 'user', content: spec.description, source: 'task' };
  const answer: Message = { role: 'assistant', content: turns[turn - 1]!.assistantText };
  return {
    version: 2,
    runId,
    sequence,
    kind: 'turn',
    savedAt: T0 + sequence,
    eventSeq: sequence * 10,
    position: { taskId: spec.id, taskIndex: done, turn },
    tasksDone: done,
    results: [],
    change: {
      modelCallIndex: 2 * done + turn,
      elapsedMs: 20 * done + 12 * turn,
      queues: QUEUES,
      active: {
        ...(turn === 1 ? { task: spec } : {}),
        messages: turn === 1 ? [first] : [[0, 1], answer],
        turns: { keep: turn - 1, add: [turns[turn - 1]!] },
        toolCalls: 1,
        usage: { inputTokens: 10 * turn, outputTokens: 4 * turn },
        costUsd: 0.001 * turn,
        elapsedMs: 12 * turn,
        repeat: { key: '', count: 0 },
        followUpDue: false,
        delivered: [],
        modelCallIndex: 2 * done + turn,
      },
    },
  };
}

/** A two-task run's history: a turn of task 1, task 1 done, two turns of task 2, task 2 done (sequences 1–5). */
export function history(runId: string): CheckpointEntry[] {
  return [turnEntry(runId, 1, 0, 1), taskEntry(runId, 2, 1), turnEntry(runId, 3, 1, 1), turnEntry(runId, 4, 1, 2), taskEntry(runId, 5, 2)];
}

/** An entry as a store may hand it back: without the results it keeps by position. */
export function asStored(entry: CheckpointEntry): Omit<CheckpointEntry, 'results'> {
  const { results: _results, ...stored } = entry;
  return stored;
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

/** A `compaction_end` of task `taskIndex`'s turn `turn`. */
export function compactionEvent(runId: string, seq: number, taskIndex: number, turn: number, messages: [before: number, after: number], outcome: 'compacted' | 'failed' | 'canceled' = 'compacted'): KernelEvent {
  return { type: 'compaction_end', taskId: `task-${taskIndex + 1}`, taskIndex, turn, outcome, messagesBefore: messages[0], messagesAfter: messages[1], runId, seq, at: T0 + seq };
}
