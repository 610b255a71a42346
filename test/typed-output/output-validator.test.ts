/**
 * The answer check (src/output/): a validator is built once per schema object, not per turn
 * (building one costs ~30 checks); parsing is strict but for one Markdown fence; deep answers are
 * refused before zod walks them.
 */
import { describe, expect, it } from 'vitest';
import { checkAnswer, checkValue, validatorFor } from '../../src/output/output-validator.js';
import { parseAnswer } from '../../src/output/answer-json.js';

const schema = { type: 'object', properties: { n: { type: 'number', default: 1 }, name: { type: 'string' } }, required: ['name'] };
const response = (text: string, toolCalls: { id: string; name: string; args: unknown }[] = []) =>
  ({ type: 'response', text, toolCalls, usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0, finishReason: 'stop' }) as const;

describe('the output validator', () => {
  it('is built once per schema object and reused for every later check', () => {
    const first = validatorFor(schema);
    checkValue(schema, { name: 'a' }, 64);
    checkValue(schema, { name: 1 }, 64);
    expect(validatorFor(schema)).toBe(first);
    // An equal schema in another object (a resumed run reads its own copy) gets its own, once.
    const copy = structuredClone(schema);
    expect(validatorFor(copy)).not.toBe(first);
    expect(validatorFor(copy)).toBe(validatorFor(copy));
  });

  it('yields the value with the schema defaults applied, or issues with paths', () => {
    expect(checkValue(schema, { name: 'a' }, 64)).toEqual({ ok: true, value: { name: 'a', n: 1 } });
    expect(checkValue(schema, { name: 2 }, 64)).toEqual({ ok: false, issues: [{ path: 'name', message: 'Invalid input: expected string, received number' }] });
  });

  it('refuses an answer nested deeper than the limit without walking it', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 10_000; level += 1) deep = [deep];
    expect(checkValue({}, deep, 64)).toEqual({ ok: false, issues: [{ path: '(root)', message: 'the answer nests deeper than 64 levels' }] });
  });

  it('parses the whole answer, one ``` or ```json fence taken off, nothing else', () => {
    expect(parseAnswer('  {"a": 1}\n')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseAnswer('```json\n{"a": 1}\n```')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseAnswer('```\n[1, 2]\n```')).toEqual({ ok: true, value: [1, 2] });
    expect(parseAnswer('Sure: {"a": 1}')).toMatchObject({ ok: false, issue: { path: '(root)', message: expect.stringMatching(/^the answer is not JSON/) } });
    expect(parseAnswer('{"a": 1,}')).toMatchObject({ ok: false });
    expect(parseAnswer('```json\n{"a": 1}\n```\nHope this helps')).toMatchObject({ ok: false });
    expect(parseAnswer('')).toEqual({ ok: false, issue: { path: '(root)', message: 'the answer is empty: it must be a JSON value' } });
  });

  it('checks only answers without tool calls, of tasks with a schema', () => {
    expect(checkAnswer(response('{"name": "a"}'), undefined, 64)).toBeUndefined();
    expect(checkAnswer(response('', [{ id: 'c', name: 't', args: {} }]), schema, 64)).toBeUndefined();
    expect(checkAnswer({ type: 'failure', code: 'x', message: 'y' }, schema, 64)).toBeUndefined();
    expect(checkAnswer(response('{"name": "a"}'), schema, 64)).toEqual({ ok: true, value: { name: 'a', n: 1 } });
  });

  it('bounds the issues it reports', () => {
    const many = { type: 'object', properties: Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`f${index}`, { type: 'string' }])) };
    const check = checkValue(many, Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`f${index}`, index])), 64);
    expect(check.ok).toBe(false);
    const issues = check.ok ? [] : check.issues;
    expect(issues).toHaveLength(11);
    expect(issues.at(-1)).toEqual({ path: '…', message: 'and 20 more issues' });
  });
});
