import type { KernelEvent, KernelEventBody } from '../contracts/events.js';
import type { Redactor } from './redactor.js';

type MessageUpdate = Extract<KernelEventBody, { type: 'message_update' }>;

/**
 * The events of one run, redacted after the sink stamps them and before any listener (the run's
 * stream, pino, the store's log) sees them (ADR/0100). Streamed text needs more than a per-event
 * pass: a key may arrive in two deltas. So each message keeps back the end of its text that may
 * still become a secret, releases it with the next delta, and flushes it as a last
 * `message_update` right before the message's `message_end`. A delta that is all held back is not
 * emitted. A text without secrets streams as it arrived, delta for delta.
 */
export class EventRedaction {
  /** The held-back text of each message in flight, by task and turn. */
  private readonly held = new Map<string, string>();

  constructor(private readonly redactor: Redactor) {}

  /** The bodies to stamp for `body`: none (all held back), it, or a flushed delta then it. */
  split(body: KernelEventBody): KernelEventBody[] {
    if (body.type === 'message_update') return this.update(body);
    if (body.type !== 'message_end') return [body];
    const key = messageKey(body);
    const rest = this.held.get(key);
    this.held.delete(key);
    if (rest === undefined || rest === '') return [body];
    const flushed: MessageUpdate = { type: 'message_update', taskId: body.taskId, taskIndex: body.taskIndex, turn: body.turn, delta: rest };
    return [flushed, body];
  }

  /** A stamped event without secrets (a copy when it had some). */
  clean(event: KernelEvent): KernelEvent {
    return this.redactor.value(event);
  }

  private update(body: MessageUpdate): KernelEventBody[] {
    const key = messageKey(body);
    const text = (this.held.get(key) ?? '') + body.delta;
    const cut = text.length - this.redactor.heldTail(text);
    this.held.set(key, text.slice(cut));
    if (cut === 0) return [];
    // No secret straddles `cut` (heldTail moved it back), so redacting the released part alone is exact.
    return [{ ...body, delta: text.slice(0, cut) }];
  }
}

function messageKey(body: { readonly taskId: string; readonly taskIndex: number; readonly turn: number }): string {
  return `${body.taskIndex}\u0000${body.taskId}\u0000${body.turn}`;
}
