import type { Message } from '../contracts/messages.js';
import type { TaskSpec, TurnProgress } from '../contracts/turn-protocol.js';
import type { ActiveTask } from '../contracts/workflow-protocol.js';
import type { TaskStrategy } from './strategy.js';

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

/** The given tasks, in order, each through the inner turn loop. */
export const reactStrategy: TaskStrategy = {
  name: 'react',
  async next(input, run, deps) {
    const task = run.tasks[input.results.length];
    if (task === undefined) {
      return { kind: 'stop', stop: { reason: 'goal_achieved', detail: `all ${input.results.length} tasks finished`, at: deps.clock.now() } };
    }
    return { kind: 'task', active: freshActiveTask(task, deps.context.system) };
  },
  remaining: (results, _state, run) => Math.max(0, run.tasks.length - results.length),
};
