/**
 * A run's steering and follow-up queues as its caller and other processes fill them: each message
 * is checked, numbered, sent to the workflow machine and reported as an event, which the store
 * appends at once, so that a crash before the next checkpoint loses no queued message (a resume
 * replays them, src/kernel/resume-plan.ts).
 */
import type { KernelEventBody } from '../contracts/events.js';
import type { QueuedMessage, QueueName } from '../contracts/queues.js';
import { isTaskOf } from '../contracts/task-id.js';
import type { TaskSpec } from '../contracts/turn-protocol.js';
import type { WorkflowEvent, WorkflowProgress } from '../contracts/workflow-protocol.js';
import { ConfigError } from '../errors.js';
import type { MessageOptions } from './workflow-run.js';

export interface RunMessages {
  /** Throws ConfigError for an empty message or a task that is not the run's; does nothing once the run ended. */
  queue(type: 'STEER' | 'FOLLOW_UP', content: string, options: MessageOptions | undefined): void;
  clear(name: QueueName): void;
}

export function runMessages(run: {
  readonly runId: string;
  readonly tasks: readonly TaskSpec[];
  readonly progress: WorkflowProgress;
  send(event: WorkflowEvent): void;
  emit(body: KernelEventBody): void;
  ended(): boolean;
}): RunMessages {
  const { queues } = run.progress;
  let nextQueueId = 1 + Math.max(0, ...queues.steering.map((message) => message.id), ...queues.followUp.map((message) => message.id));
  return {
    queue(type, content, options) {
      const what = type === 'STEER' ? 'steer' : 'followUp';
      if (typeof content !== 'string' || content === '') {
        throw new ConfigError({ message: `Invalid ${what} message`, issues: [{ path: 'message', message: 'must be a non-empty string' }] });
      }
      const taskId = options?.taskId;
      if (taskId !== undefined && (typeof taskId !== 'string' || !isTaskOf(run.tasks, taskId))) {
        const known = run.tasks.map((task) => `"${task.id}"`).join(', ');
        throw new ConfigError({ message: `Invalid ${what} options`, issues: [{ path: 'taskId', message: `"${String(taskId)}" is not a task of run ${run.runId} (${known})` }] });
      }
      if (run.ended()) return;
      const message: QueuedMessage = { id: nextQueueId++, content, ...(taskId === undefined ? {} : { taskId }) };
      run.send({ type, message });
      run.emit({ type: 'message_queued', queue: type === 'STEER' ? 'steering' : 'followUp', ...message });
    },
    clear(name) {
      if (run.ended()) return;
      run.send({ type: 'CLEAR_QUEUE', queue: name });
      run.emit({ type: 'queue_cleared', queue: name });
    },
  };
}
