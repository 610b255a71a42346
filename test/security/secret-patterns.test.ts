import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/redaction/secret-values.js';
import { SHORTEST_TOKEN, TOKEN_SOURCES } from '../../src/redaction/secret-patterns.js';

/*
 * The redactor skips the search on strings shorter than SHORTEST_TOKEN (issue 16: most strings of
 * a run are short names). That is only safe if no token pattern can match a shorter string, and
 * if configured values shorter than it still lower the threshold.
 */

/** Every character any token pattern can match, so random strings can form (prefixes of) tokens. */
const TOKEN_CHARACTERS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-*.~+/= '];
const tokenish = fc.string({ unit: fc.constantFrom(...TOKEN_CHARACTERS), maxLength: SHORTEST_TOKEN - 1 });
const heads = fc.constantFrom('sk-', 'sk_', 'Bearer ', 'bearer ', 'eyJ', 'ghp_', 'github_pat_', 'AKIA', 'xoxb-', 'AIza');

describe('SHORTEST_TOKEN', () => {
  it('no token pattern matches a string shorter than it', () => {
    const patterns = TOKEN_SOURCES.map((source) => new RegExp(source));
    fc.assert(
      fc.property(heads, tokenish, (head, tail) => {
        const text = (head + tail).slice(0, SHORTEST_TOKEN - 1);
        for (const pattern of patterns) expect(pattern.test(text), `${pattern} matched ${JSON.stringify(text)}`).toBe(false);
      }),
      { numRuns: 2_000 },
    );
  });

  it('a token of exactly that length is still redacted', () => {
    const redactor = createRedactor({ models: [] });
    const token = 'sk-abcdefgh';
    expect(token).toHaveLength(SHORTEST_TOKEN);
    expect(redactor.text(`${token}`)).toBe('[redacted]');
    expect(redactor.value({ token })).toEqual({ token: '[redacted]' });
  });

  it('a configured value shorter than a token is still found in a short string', () => {
    const redactor = createRedactor({ redact: ['pw42'], models: [] });
    expect(redactor.text('pw42')).toBe('[redacted]');
    expect(redactor.value({ note: 'a pw42' })).toEqual({ note: 'a [redacted]' });
  });
});
