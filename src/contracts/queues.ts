/** A steering or follow-up message waiting to be delivered; `id` is unique per run. */
export interface QueuedMessage {
  readonly id: number;
  readonly content: string;
  /** For one task of a graph only (`run.steer(message, { taskId })`); otherwise for whichever task takes it. */
  readonly taskId?: string;
}

export interface MessageQueues {
  readonly steering: readonly QueuedMessage[];
  readonly followUp: readonly QueuedMessage[];
}

export type QueueName = 'steering' | 'followUp' | 'all';

/** `one-at-a-time` delivers the oldest message per turn; `all` delivers every queued message at once. */
export type DeliveryMode = 'one-at-a-time' | 'all';

export const EMPTY_QUEUES: MessageQueues = Object.freeze({ steering: [], followUp: [] });

export function withoutIds(queues: MessageQueues, ids: ReadonlySet<number>): MessageQueues {
  if (ids.size === 0) return queues;
  return {
    steering: queues.steering.filter((message) => !ids.has(message.id)),
    followUp: queues.followUp.filter((message) => !ids.has(message.id)),
  };
}

/** Every message of both, once each, in id order. */
export function mergeQueues(a: MessageQueues, b: MessageQueues): MessageQueues {
  const merge = (x: readonly QueuedMessage[], y: readonly QueuedMessage[]) => {
    const byId = new Map<number, QueuedMessage>();
    for (const message of [...x, ...y]) byId.set(message.id, message);
    return [...byId.values()].sort((first, second) => first.id - second.id);
  };
  return { steering: merge(a.steering, b.steering), followUp: merge(a.followUp, b.followUp) };
}

export function clearQueue(queues: MessageQueues, name: QueueName): MessageQueues {
  if (name === 'all') return EMPTY_QUEUES;
  return name === 'steering' ? { ...queues, steering: [] } : { ...queues, followUp: [] };
}

export function enqueue(queues: MessageQueues, name: 'steering' | 'followUp', message: QueuedMessage): MessageQueues {
  if (queues[name].some((queued) => queued.id === message.id)) return queues;
  return name === 'steering'
    ? { ...queues, steering: [...queues.steering, message] }
    : { ...queues, followUp: [...queues.followUp, message] };
}

/** The messages of a queue that a task may take: those for any task and those for it. */
export function queuesFor(queues: MessageQueues, taskId: string): MessageQueues {
  const mine = (message: QueuedMessage) => message.taskId === undefined || message.taskId === taskId;
  if (queues.steering.every(mine) && queues.followUp.every(mine)) return queues;
  return { steering: queues.steering.filter(mine), followUp: queues.followUp.filter(mine) };
}
