import type { Message } from '../contracts/messages.js';
import type { TaskSpec, TurnProgress } from '../contracts/turn-protocol.js';
import type { ActiveTask } from '../contracts/workflow-protocol.js';
import type { TaskSourceInput, TaskSourceOutput } from '../contracts/workflow-protocol.js';
import { schedule } from '../graph/graph-schedule.js';
import { fillPlaceholders } from '../graph/placeholders.js';
import { isGraph } from '../graph/task-graph.js';
import type { StrategyDeps, StrategyRun, TaskStrategy } from './strategy.js';

/**
 * The task's first transcript: the system prompt (if any) and the task as a user message —
 * its description, or `content` when a strategy words the task itself (a plan step in context).
 */
export function freshActiveTask(task: TaskSpec, system: string | undefined, content: string = task.description): ActiveTask {
  const messages: Message[] =
    system === undefined || system === ''
      ? [{ role: 'user', content, source: 'task' }]
      : [
          { role: 'system', content: system },
          { role: 'user', content, source: 'task' },
        ];
  return { task, point: { progress: freshProgress(messages), queues: { steering: [], followUp: [] }, delivered: [], modelCallIndex: 0 } };
}

/** A task that has not run a turn yet, starting from `messages`. */
export function freshProgress(messages: readonly Message[]): TurnProgress {
  return {
    messages,
    turns: [],
    toolCalls: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    costUsd: 0,
    elapsedMs: 0,
    repeat: { key: '', count: 0 },
    followUpDue: false,
  };
}

/**
 * The given tasks through the inner turn loop: a list in order, a graph as its dependencies allow
 * (src/graph/graph-schedule.ts). Placeholders (`{{<taskId>.output}}`) are filled as a task starts.
 */
export const reactStrategy: TaskStrategy = {
  name: 'react',
  async next(input, run, deps) {
    if (isGraph(run.tasks)) return graphNext(input, run, deps);
    const task = run.tasks[input.results.length];
    if (task === undefined) {
      return { kind: 'stop', stop: { reason: 'goal_achieved', detail: `all ${input.results.length} tasks finished`, at: deps.clock.now() } };
    }
    const { text, missing } = fillPlaceholders(task.description, { output: (taskId) => input.results.findLast((result) => result.taskId === taskId)?.output });
    warnMissing(run, task, missing);
    return { kind: 'task', active: freshActiveTask(text === task.description ? task : { ...task, description: text }, deps.context.system) };
  },
  // A graph decides its own end at TASK_SELECT (its source says `stop`), so no count is given.
  remaining: (results, _state, run) => (isGraph(run.tasks) ? undefined : Math.max(0, run.tasks.length - results.length)),
};

function graphNext(input: TaskSourceInput, run: StrategyRun, deps: StrategyDeps): TaskSourceOutput {
  const planned = schedule({
    tasks: run.tasks,
    results: input.results,
    busy: input.busy,
    running: input.running,
    slots: input.slots,
    workflowSteps: input.metrics.workflowSteps,
    maxWorkflowSteps: input.maxWorkflowSteps,
    at: deps.clock.now(),
  });
  if (planned.kind === 'stop') return planned;
  const start = planned.start.map(({ task, missing }) => {
    warnMissing(run, task, missing);
    return freshActiveTask(task, deps.context.system);
  });
  return { kind: 'ready', start, settled: planned.settled };
}

/** A placeholder whose value was not there is filled with nothing, and said so. */
function warnMissing(run: StrategyRun, task: TaskSpec, missing: readonly string[]): void {
  if (missing.length === 0) return;
  run.emit({ type: 'warning', taskId: task.id, taskIndex: task.index, message: `task "${task.id}": no value for ${missing.join(', ')} (filled with nothing)` });
}
