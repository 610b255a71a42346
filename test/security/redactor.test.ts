import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventRedaction } from '../../src/redaction/event-redaction.js';
import { MAX_REDACTION_DEPTH } from '../../src/redaction/redactor.js';
import { createRedactor } from '../../src/redaction/secret-values.js';
import type { KernelEvent, KernelEventBody } from 'dualloop';

/*
 * The redactor itself (ADR/0100): configured values and key-shaped tokens in any field, at any
 * depth, without throwing, and streamed text whose secrets arrive in pieces.
 */

const SECRET = 'hunter2-is-my-password';
const redactor = createRedactor({ redact: [SECRET], models: [{ provider: 'p', modelId: 'm', secrets: ['sk-configured-key-0001', 'Bearer header-token-42'], call: async () => ({ type: 'failure', code: 'x', message: '' }) }] });

describe('the redactor', () => {
  it('replaces configured values and key-shaped tokens inside any string, in keys, and under secret-looking keys', () => {
    const value = {
      text: `my password is ${SECRET}!`,
      list: ['sk-configured-key-0001', { deeper: 'token header-token-42 here' }],
      [`key-${SECRET}`]: 1,
      apiKey: 'short',
      headers: { authorization: 'whatever' },
      jwt: 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJtZSJ9.sig',
      json: JSON.stringify({ password: `"${SECRET}"` }),
      url: `https://x.test/?p=${encodeURIComponent('Bearer header-token-42')}`,
      usage: { inputTokens: 3, outputTokens: 4 },
    };
    const clean = redactor.value(value);
    expect(JSON.stringify(clean)).not.toMatch(/hunter2|configured-key|header-token|eyJzdWIi|short|whatever/);
    expect(clean.usage).toBe(value.usage);
    expect(clean.list[1]).toEqual({ deeper: 'token [redacted] here' });
    expect(value.text).toContain(SECRET);
  });

  it('returns the same object when nothing needed changing, and never throws', () => {
    const plain = { a: ['b', { c: 1 }] };
    expect(redactor.value(plain)).toBe(plain);
    const hostile = {
      get boom(): string {
        throw new Error(SECRET);
      },
    };
    const cycle: Record<string, unknown> = { secret: 'x', name: SECRET };
    cycle['self'] = cycle;
    let deep: unknown = SECRET;
    for (let level = 0; level < 5_000; level += 1) deep = { level: deep };
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    const clean = redactor.value({ hostile, cycle, deep, proxy: revoked.proxy });
    expect(JSON.stringify(clean)).not.toContain('hunter2');
    expect(JSON.stringify(clean)).toContain('[circular]');
    expect(JSON.stringify(clean)).toContain('nested too deep');
    expect(MAX_REDACTION_DEPTH).toBeLessThan(5_000);
  });

  it('holds back streamed text that may be a secret: no split of a secret leaks, and the deltas add up', () => {
    const secrets = [SECRET, 'sk-configured-key-0001', 'sk-loose-ABCDEFGH1234', 'Bearer abcdefghijkl', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJtZSJ9.sig'];
    fc.assert(
      fc.property(fc.constantFrom(...secrets), fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }), fc.array(fc.integer({ min: 1, max: 60 }), { maxLength: 12 }), (secret, before, after, cuts) => {
        const text = `${before} ${secret} ${after}`;
        const positions = [...new Set(cuts.map((cut) => Math.min(cut, text.length)))].sort((left, right) => left - right);
        const pieces: string[] = [];
        let from = 0;
        for (const position of [...positions, text.length]) {
          if (position > from) pieces.push(text.slice(from, position));
          from = Math.max(from, position);
        }
        const redaction = new EventRedaction(redactor);
        const scope = { taskId: 't', taskIndex: 0, turn: 1 };
        const out: KernelEventBody[] = [];
        for (const delta of pieces) out.push(...redaction.split({ type: 'message_update', ...scope, delta }));
        out.push(...redaction.split({ type: 'message_end', ...scope, text, toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0, finishReason: 'stop' }));
        const stamped = out.map((body, seq) => redaction.clean({ ...body, runId: 'r', seq, at: 0 } as KernelEvent));
        const deltas = stamped.flatMap((event) => (event.type === 'message_update' ? [event.delta] : []));
        const end = stamped.at(-1)!;
        for (const delta of deltas) expect(delta).not.toContain(secret.slice(-6));
        expect(end.type === 'message_end' && end.text).toBe(deltas.join(''));
        expect(deltas.join('')).toBe(redactor.text(text));
      }),
      { numRuns: 300 },
    );
  });

  it('holds a whole `Bearer` at the end of a delta: the credential of the next delta does not leak', () => {
    for (const pieces of [
      ['header: Bearer', ' abcDEF123456ghiJKL', ' done'],
      ['x-bearer', '\tZZZZZZZZZZZZZZ', 'Z'],
      ['Bearer', ' ', 'tok', 'en-0123456789', '.'],
    ]) {
      const redaction = new EventRedaction(redactor);
      const scope = { taskId: 't', taskIndex: 0, turn: 1 };
      const text = pieces.join('');
      const out = pieces.flatMap((delta) => redaction.split({ type: 'message_update', ...scope, delta }));
      out.push(...redaction.split({ type: 'message_end', ...scope, text, toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0, finishReason: 'stop' }));
      const deltas = out.map((body, seq) => redaction.clean({ ...body, runId: 'r', seq, at: 0 } as KernelEvent)).flatMap((event) => (event.type === 'message_update' ? [event.delta] : []));
      expect(deltas.join(''), JSON.stringify(pieces)).toBe(redactor.text(text));
      expect(deltas.join('')).toContain('[redacted]');
    }
  });

  it('streams a text without secrets delta for delta (unless a delta ends like the start of one)', () => {
    const redaction = new EventRedaction(createRedactor({ redact: [SECRET], models: [] }));
    const scope = { taskId: 't', taskIndex: 0, turn: 1 };
    const deltas = ['hello', ' world', ', this', ' is fine.'].flatMap((delta) => redaction.split({ type: 'message_update', ...scope, delta }));
    expect(deltas.map((body) => body.type === 'message_update' && body.delta)).toEqual(['hello', ' world', ', this', ' is fine.']);
  });
});
