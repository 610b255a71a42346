/**
 * Pure functions for the workflow machine's tasks between TASK_SELECT and their checkpoint: which
 * tasks were picked, which run (each in its own turn machine, spawned as `task.<taskId>`), which
 * ended and owe a checkpoint, which halted. A list has at most one task there at a time; a graph
 * up to `maxParallelTasks` (ADR/0420). No effects, no clock.
 */
import { mergeQueues, queuesFor, withoutIds, type QueuedMessage } from '../contracts/queues.js';
import type { TaskResult, WorkflowMetrics } from '../contracts/results.js';
import type { StopCondition } from '../contracts/stop.js';
import { isResumableStop } from '../contracts/stop-rules.js';
import type { TaskSpec, TurnOutput } from '../contracts/turn-protocol.js';
import { addCounts } from '../contracts/usage.js';
import type { ActiveTask, Branches, GateDecision, StrategySpend, TaskSourceOutput, WorkflowContext } from '../contracts/workflow-protocol.js';

export const NO_BRANCHES: Branches = Object.freeze({ picked: [], running: [], finished: [], halted: [] });

/**
 * The id of a task's turn machine among the workflow's children: a graph's are `task.<taskId>`;
 * a list's one task at a time is `task`, as it always was (the inspector shows it by that name).
 */
export function branchId(context: WorkflowContext, taskId: string): string {
  return context.settings.graph ? `task.${taskId}` : 'task';
}

/** How many more tasks may start now. */
export function freeSlots(context: WorkflowContext): number {
  const { branches } = context;
  return Math.max(0, context.settings.maxParallelTasks - branches.running.length - branches.picked.length);
}

/** Ids of the tasks a graph must not pick again now: picked, running, ended without a checkpoint yet, halted. */
export function busyTaskIds(context: WorkflowContext): string[] {
  const { branches } = context;
  return [...branches.picked, ...branches.running, ...branches.halted].map((active) => active.task.id);
}

export function addTask(metrics: WorkflowMetrics, result: TaskResult, runtimeMs: number): WorkflowMetrics {
  return {
    workflowSteps: metrics.workflowSteps + 1,
    turns: metrics.turns + result.turnCount,
    toolCalls: metrics.toolCalls + result.toolCalls,
    inputTokens: addCounts(metrics.inputTokens, result.usage.inputTokens),
    outputTokens: addCounts(metrics.outputTokens, result.usage.outputTokens),
    costUsd: metrics.costUsd + result.costUsd,
    runtimeMs,
  };
}

/** The model calls a strategy made while picking: turns, tokens and cost of the workflow. */
export function addSpend(metrics: WorkflowMetrics, spent: StrategySpend | undefined): WorkflowMetrics {
  if (spent === undefined) return metrics;
  return {
    ...metrics,
    turns: metrics.turns + spent.turns,
    inputTokens: addCounts(metrics.inputTokens, spent.inputTokens),
    outputTokens: addCounts(metrics.outputTokens, spent.outputTokens),
    costUsd: metrics.costUsd + spent.costUsd,
  };
}

export function elapsedAt(context: WorkflowContext, at: number): number {
  return context.elapsedBeforeMs + Math.max(0, at - context.startedAt);
}

/**
 * A task's turn machine ended: keep its result, sum the metrics, drop the queue messages it
 * delivered, and owe it a checkpoint. A task that stopped for a resumable reason halts: a resume
 * runs it again from its resume point, so its result is not committed. In a list it halts only
 * when the workflow stops on it (`onTaskStop: 'halt'`, or a cancel or deadline pending); in a graph
 * always (the other branches go on).
 */
export function recordBranchEnd(context: WorkflowContext, output: TurnOutput): Partial<WorkflowContext> {
  const { result } = output;
  const { branches, settings } = context;
  const started = branches.running.find((active) => active.task.id === result.taskId);
  const stopsHere = settings.graph || settings.onTaskStop === 'halt' || context.pendingStop !== undefined;
  const halts = started !== undefined && stopsHere && isResumableStop(result.stop.reason);
  const runtimeMs = elapsedAt(context, result.stop.at);
  const metrics = addTask(context.metrics, result, runtimeMs);
  return {
    results: [...context.results, result],
    metrics,
    committedMetrics: halts ? context.committedMetrics : addTask(context.committedMetrics, result, runtimeMs),
    queues: withoutIds(context.queues, new Set(output.delivered)),
    modelCallIndex: settings.graph ? Math.max(context.modelCallIndex, output.modelCallIndex) : output.modelCallIndex,
    branches: {
      ...branches,
      running: branches.running.filter((active) => active !== started),
      finished: [...branches.finished, result.taskId],
      halted: halts ? [...branches.halted, { task: started.task, point: output.resumePoint }] : branches.halted,
    },
    lastAt: Math.max(context.lastAt, result.stop.at),
  };
}

/**
 * TASK_SELECT.PICK done: keep the strategy's state and what its model calls spent; the tasks to
 * gate, and the results of tasks that end without running. In a list, reaching TASK_SELECT means
 * the workflow did not stop on its last task (a plan strategy replans a failed step instead), so
 * that task is committed: it no longer counts as halted.
 */
export function recordPick(context: WorkflowContext, output: TaskSourceOutput): Partial<WorkflowContext> {
  const graph = context.settings.graph;
  const metrics = addSpend(context.metrics, output.spent);
  const base: Partial<WorkflowContext> = {
    strategy: output.strategy,
    metrics,
    committedMetrics: graph ? addSpend(context.committedMetrics, output.spent) : metrics,
    modelCallIndex: output.modelCallIndex ?? context.modelCallIndex,
  };
  const branches = graph ? context.branches : { ...context.branches, halted: [] };
  if (output.kind === 'stop') return { ...base, branches, stop: output.stop };
  if (output.kind === 'task') return { ...base, branches: { ...branches, picked: [output.active] } };
  const settled = output.settled;
  return {
    ...base,
    results: settled.length === 0 ? context.results : [...context.results, ...settled],
    branches: { ...branches, picked: output.start, finished: [...branches.finished, ...settled.map((result) => result.taskId)] },
  };
}

/** The policy gate allowed the first picked task: it starts running (the machine spawns it). */
export function startPicked(context: WorkflowContext, at: number): Partial<WorkflowContext> {
  const [first, ...rest] = context.branches.picked;
  if (first === undefined) return {};
  return { lastAt: at, ...handOver(context, first.task.id), branches: { ...context.branches, picked: rest, running: [...context.branches.running, first] } };
}

/**
 * A graph's task that starts takes the waiting messages for it (turnInputFor gives them to it):
 * they leave the workflow's queues, so that no other task delivers them too. A list keeps them
 * there until its task delivered them, as it always did.
 */
export function handOver(context: WorkflowContext, taskId: string): Partial<WorkflowContext> {
  if (!context.settings.graph) return {};
  const taken = queuesFor(context.queues, taskId);
  const ids = new Set([...taken.steering, ...taken.followUp].map((message) => message.id));
  return ids.size === 0 ? {} : { queues: withoutIds(context.queues, ids) };
}

/**
 * Where a steering or follow-up message goes: in a list, to the workflow's queue (and the running
 * task). In a graph, straight to the tasks it is for when they run — every running task, or the
 * named one — else it waits in the workflow's queue for the next task it is for to start.
 */
export function waitsInQueue(context: WorkflowContext, message: QueuedMessage): boolean {
  if (!context.settings.graph) return true;
  const { running } = context.branches;
  return message.taskId === undefined ? running.length === 0 : !running.some((active) => active.task.id === message.taskId);
}

/** The running tasks a steering, follow-up or clear event is for. */
export function tasksFor(context: WorkflowContext, message: QueuedMessage | undefined): readonly ActiveTask[] {
  const { running } = context.branches;
  return message?.taskId === undefined ? running : running.filter((active) => active.task.id === message.taskId);
}

/**
 * The policy gate refused the first picked task in a graph: the task ends there, without a turn,
 * stopped `policy_denied` or `awaiting_approval` (a resume asks the gate again), and owes a
 * checkpoint like any other; the other branches go on.
 */
export function refusePicked(context: WorkflowContext, refusal: Extract<GateDecision, { stop: unknown }>): Partial<WorkflowContext> {
  const [first, ...rest] = context.branches.picked;
  if (first === undefined) return {};
  const result = unrunResult(first, refusal.stop);
  return {
    results: [...context.results, result],
    lastAt: refusal.at,
    branches: { ...context.branches, picked: rest, finished: [...context.branches.finished, result.taskId] },
  };
}

/** The result of a task that ended before its first turn. */
export function unrunResult({ task }: ActiveTask, stop: StopCondition): TaskResult {
  return unrunTaskResult(task, stop);
}

/** The result of a task that never ran a turn (refused, or its dependency failed): no turns, nothing spent. */
export function unrunTaskResult(task: TaskSpec, stop: StopCondition): TaskResult {
  return {
    taskId: task.id,
    index: task.index,
    description: task.description,
    stop,
    turns: [],
    turnCount: 0,
    toolCalls: 0,
    output: task.output === undefined ? '' : undefined,
    usage: { inputTokens: 0, outputTokens: 0 },
    costUsd: 0,
    runtimeMs: 0,
  };
}

/** A cancel, deadline or outer stop arrived: picked tasks do not start. */
export function dropPicked(context: WorkflowContext): Partial<WorkflowContext> {
  return context.branches.picked.length === 0 ? {} : { branches: { ...context.branches, picked: [] } };
}

/** CHECKPOINT done: the oldest ended task has its checkpoint. */
export function dropFinished(context: WorkflowContext): Partial<WorkflowContext> {
  return { branches: { ...context.branches, finished: context.branches.finished.slice(1) } };
}

/** The result CHECKPOINT saves: the oldest ended task's. */
export function finishedResult(context: WorkflowContext): TaskResult {
  const id = context.branches.finished[0];
  return context.results.findLast((result) => result.taskId === id)!;
}

/**
 * The list's halted task, as the checkpoint keeps it: not committed; the active task, with the
 * queues it had not delivered (plus any queued since) and the model-call index of its resume
 * point, so that a replay is identical.
 */
export function listHaltedProgress(context: WorkflowContext, halted: ActiveTask) {
  return {
    results: context.results.slice(0, -1),
    metrics: context.committedMetrics,
    queues: mergeQueues(halted.point.queues, context.queues),
    modelCallIndex: halted.point.modelCallIndex,
    active: halted,
  };
}
