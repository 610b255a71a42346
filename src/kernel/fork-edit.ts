/**
 * Applies a fork's edit to the state at the fork point (pure). Inner bounds go to the running
 * task and every later task's spec, so they hold for the rest of the fork and a resume of it;
 * queue edits get ids after every id the state knows, so none is mistaken for a delivered one.
 */
import type { InnerBounds } from '../contracts/bounds.js';
import type { ForkEdit } from '../contracts/fork.js';
import type { Message } from '../contracts/messages.js';
import type { MessageQueues, QueuedMessage } from '../contracts/queues.js';
import type { TaskSpec } from '../contracts/turn-protocol.js';
import type { WorkflowProgress } from '../contracts/workflow-protocol.js';

export interface EditedFork {
  readonly progress: WorkflowProgress;
  readonly tasks: readonly TaskSpec[];
}

export function applyForkEdit(progress: WorkflowProgress, tasks: readonly TaskSpec[], firstTask: number, edit: ForkEdit | undefined): EditedFork {
  if (edit === undefined) return { progress, tasks };
  const inner = definedOnly(edit.bounds?.inner);
  const bounded = (task: TaskSpec): TaskSpec => (inner === undefined ? task : { ...task, bounds: { ...task.bounds, ...inner } });
  let nextId = 1 + Math.max(0, ...idsOf(progress.queues), ...(progress.active?.point.delivered ?? []), ...(progress.active === undefined ? [] : idsOf(progress.active.point.queues)));
  const queued = (content: string): QueuedMessage => ({ id: nextId++, content });
  let queues: MessageQueues = progress.queues;
  if (edit.pendingMessages !== undefined) {
    const { steering, followUp } = edit.pendingMessages;
    queues = { steering: steering === undefined ? queues.steering : steering.map(queued), followUp: followUp === undefined ? queues.followUp : followUp.map(queued) };
  }
  const { active } = progress;
  if (active === undefined) {
    // No task is running: the added message waits in the steering queue, which turn 1 of the next task delivers.
    if (edit.message !== undefined) queues = { ...queues, steering: [...queues.steering, queued(edit.message)] };
    return { progress: { ...progress, queues }, tasks: tasks.map((task) => (task.index >= firstTask ? bounded(task) : task)) };
  }
  let messages: readonly Message[] = edit.messages ?? active.point.progress.messages;
  // Recorded as a steering message: a user message that did not come from the task itself.
  if (edit.message !== undefined) messages = [...messages, { role: 'user', content: edit.message, source: 'steering' }];
  return {
    progress: {
      ...progress,
      queues,
      active: { task: bounded(active.task), point: { ...active.point, ...(edit.pendingMessages === undefined ? {} : { queues }), progress: { ...active.point.progress, messages } } },
    },
    tasks: tasks.map((task) => (task.index >= active.task.index ? bounded(task) : task)),
  };
}

function idsOf(queues: MessageQueues): number[] {
  return [...queues.steering, ...queues.followUp].map((message) => message.id);
}

function definedOnly(bounds: Partial<InnerBounds> | undefined): Partial<InnerBounds> | undefined {
  if (bounds === undefined) return undefined;
  return Object.fromEntries(Object.entries(bounds).filter(([, value]) => value !== undefined)) as Partial<InnerBounds>;
}
