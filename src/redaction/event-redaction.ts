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
  /** The held-back text of each message in flight, by task and turn, and the body class it grows by. */
  private readonly held = new Map<string, { readonly text: string; readonly body?: RegExp }>();

  constructor(private readonly redactor: Redactor) {}

  /** The bodies to stamp for `body`: none (all held back), it, or a flushed delta then it. */
  split(body: KernelEventBody): KernelEventBody[] {
    if (body.type === 'message_update') return this.update(body);
    if (body.type !== 'message_end') return [body];
    const key = messageKey(body);
    const rest = this.held.get(key)?.text;
    this.held.delete(key);
    if (rest === undefined || rest === '') return [body];
    const flushed: MessageUpdate = { type: 'message_update', taskId: body.taskId, taskIndex: body.taskIndex, turn: body.turn, delta: rest };
    return [flushed, body];
  }

  /** A stamped event without secrets (a copy when it had some). */
  clean(event: KernelEvent): KernelEvent {
    // Stamped in place: the body may have been seen (unstamped) before, as an action's parameters.
    return this.redactor.fresh(event);
  }

  private update(body: MessageUpdate): KernelEventBody[] {
    const key = messageKey(body);
    const held = this.held.get(key);
    const text = (held?.text ?? '') + body.delta;
    // A token still growing by its own characters stays held without a new scan: linear, not quadratic.
    if (held?.body !== undefined && text.length <= this.redactor.maxHold && continues(body.delta, held.body)) {
      this.held.set(key, { text, body: held.body });
      return [];
    }
    const tail = this.redactor.heldTail(text);
    const cut = text.length - tail.hold;
    this.held.set(key, tail.body === undefined ? { text: text.slice(cut) } : { text: text.slice(cut), body: tail.body });
    if (cut === 0) return [];
    // No secret straddles `cut` (heldTail moved it back), so redacting the released part alone is exact.
    return [{ ...body, delta: text.slice(0, cut) }];
  }
}

function continues(delta: string, body: RegExp): boolean {
  for (const character of delta) if (!body.test(character)) return false;
  return true;
}

function messageKey(body: { readonly taskId: string; readonly taskIndex: number; readonly turn: number }): string {
  return `${body.taskIndex}\u0000${body.taskId}\u0000${body.turn}`;
}
