/**
 * A transcript as a checkpoint entry stores it: ranges of the previous transcript kept, and new
 * messages (ADR/0120). The machines never mutate a transcript; they build a new array that
 * reuses the message objects they keep, so object identity tells what was kept. A turn that only
 * appends costs one range and its new messages, whatever the transcript's length; a compaction
 * costs its ranges and its note.
 */
import type { TranscriptPiece } from '../contracts/checkpoint.js';
import type { Message } from '../contracts/messages.js';

/** `next` as pieces of `previous`: kept ranges `[from, to)` and new messages, in order. */
export function transcriptPieces(previous: readonly Message[], next: readonly Message[]): TranscriptPiece[] {
  const kept = previous.length;
  if (next.length >= kept && startsWith(next, previous)) {
    const added = next.slice(kept) as TranscriptPiece[];
    return kept === 0 ? added : [[0, kept], ...added];
  }
  const positions = new Map<Message, number>();
  previous.forEach((message, index) => positions.set(message, index));
  const pieces: TranscriptPiece[] = [];
  let range: [number, number] | undefined;
  for (const message of next) {
    if (range !== undefined && previous[range[1]] === message) {
      range[1] += 1;
      continue;
    }
    const at = positions.get(message);
    if (at === undefined) {
      range = undefined;
      pieces.push(message);
    } else {
      range = [at, at + 1];
      pieces.push(range);
    }
  }
  return pieces;
}

function startsWith(next: readonly Message[], prefix: readonly Message[]): boolean {
  for (let index = prefix.length - 1; index >= 0; index -= 1) if (next[index] !== prefix[index]) return false;
  return true;
}

/** Rebuilds a transcript from `previous` and pieces; a string names what is wrong when a range does not fit. */
export function applyPieces(previous: readonly Message[], pieces: readonly TranscriptPiece[]): Message[] | string {
  const messages: Message[] = [];
  for (const piece of pieces) {
    if (!isRange(piece)) {
      messages.push(piece);
      continue;
    }
    const [from, to] = piece;
    if (!(from <= to && to <= previous.length)) return `transcript range [${from}, ${to}) is outside the previous transcript of ${previous.length} messages`;
    for (let index = from; index < to; index += 1) messages.push(previous[index]!);
  }
  return messages;
}

function isRange(piece: TranscriptPiece): piece is readonly [number, number] {
  return Array.isArray(piece);
}
