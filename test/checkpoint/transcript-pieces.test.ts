import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from 'dualloop';
import { applyPieces, transcriptPieces } from '../../src/checkpoint/transcript-pieces.js';

const message = (content: string): Message => ({ role: 'user', content });

/** A transcript and a next one made from it by the machines' moves: keep ranges (compaction), insert, append. */
const transcripts = fc
  .tuple(fc.array(fc.string({ maxLength: 4 }), { maxLength: 30 }), fc.array(fc.oneof(fc.tuple(fc.nat(40), fc.nat(40)), fc.string({ maxLength: 4 })), { maxLength: 12 }))
  .map(([contents, moves]) => {
    const previous = contents.map(message);
    const next: Message[] = [];
    for (const move of moves) {
      if (typeof move === 'string') next.push(message(move));
      else next.push(...previous.slice(Math.min(move[0], move[1]), Math.max(move[0], move[1])));
    }
    return { previous, next };
  });

describe('transcript pieces', () => {
  it('rebuild the next transcript from the previous one, message for message', () => {
    fc.assert(
      fc.property(transcripts, ({ previous, next }) => {
        const rebuilt = applyPieces(previous, transcriptPieces(previous, next));
        expect(Array.isArray(rebuilt)).toBe(true);
        expect((rebuilt as Message[]).length).toBe(next.length);
        (rebuilt as Message[]).forEach((item, index) => expect(item).toBe(next[index]));
      }),
    );
  });

  it('survive JSON: a stored entry rebuilds an equal transcript', () => {
    fc.assert(
      fc.property(transcripts, ({ previous, next }) => {
        const stored = JSON.parse(JSON.stringify(transcriptPieces(previous, next)));
        expect(applyPieces(previous, stored)).toEqual(next);
      }),
    );
  });

  it('cost one range and the new messages when a turn only appends, whatever the length', () => {
    const previous = Array.from({ length: 5000 }, (_, index) => message(`m${index}`));
    const added = [message('assistant'), message('tool')];
    expect(transcriptPieces(previous, [...previous, ...added])).toEqual([[0, 5000], ...added]);
    expect(transcriptPieces([], added)).toEqual(added);
  });

  it('name a range that does not fit the previous transcript', () => {
    expect(applyPieces([message('a')], [[0, 2]])).toMatch(/range \[0, 2\) is outside the previous transcript of 1 messages/);
  });
});
