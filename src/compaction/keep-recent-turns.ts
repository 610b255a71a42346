import type { Compactor } from '../contracts/hooks.js';
import type { Message } from '../contracts/messages.js';
import { ConfigError } from '../errors.js';

export interface KeepRecentTurnsOptions {
  /** Turns kept: the first one and the last `keep - 1`. Default 20. */
  readonly keep?: number;
}

/**
 * The default compactor. A turn is an assistant message with the tool results and user messages
 * that follow it. When the transcript holds more than `keep` turns, it keeps the messages before
 * the first turn (system prompt, task), the first turn, a note saying how many turns were
 * dropped, and the last `keep - 1` turns. Tool calls and their results are never split.
 * Returns a new array; the input is never mutated.
 */
export function keepRecentTurns(options: KeepRecentTurnsOptions = {}): Compactor {
  const keep = options.keep ?? 20;
  if (!Number.isInteger(keep) || keep < 2) {
    throw new ConfigError({ message: 'Invalid keepRecentTurns options', issues: [{ path: 'keep', message: 'must be an integer >= 2' }] });
  }
  return {
    shouldCompact: (messages) => countTurns(messages) > keep,
    compact: (messages) => compactMessages(messages, keep),
  };
}

function turnStarts(messages: readonly Message[]): number[] {
  const starts: number[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'assistant') starts.push(index);
  });
  return starts;
}

function countTurns(messages: readonly Message[]): number {
  let turns = 0;
  for (const message of messages) if (message.role === 'assistant') turns += 1;
  return turns;
}

export function compactMessages(messages: readonly Message[], keep: number): readonly Message[] {
  const starts = turnStarts(messages);
  if (starts.length <= keep) return messages.slice();
  const firstTurnEnd = starts[1]!;
  const recentStart = starts[starts.length - (keep - 1)]!;
  const dropped = starts.length - keep;
  const note: Message = { role: 'user', content: `[${dropped} earlier turn${dropped === 1 ? '' : 's'} omitted to save context]` };
  return [...messages.slice(0, firstTurnEnd), note, ...messages.slice(recentStart)];
}
