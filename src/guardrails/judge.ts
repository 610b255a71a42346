/**
 * A `judge` guardrail (docs/guardrails.md): one model call that answers PASS or FAIL about the
 * checked value, charged to the task. The judge sees the prompt as its system message and the
 * value as the user's; its answer's first word decides. Anything else — a failed call, an answer
 * that is neither — trips the guardrail: a judge that cannot judge fails closed.
 */
import type { GuardrailContext, GuardrailVerdict } from '../contracts/guardrails.js';
import type { Model } from '../contracts/model.js';

const INSTRUCTION = 'Answer with PASS if the text below passes this check, or FAIL followed by a one-line reason if it does not. Answer nothing else.';
const MAX_REASON_CHARS = 300;

export interface JudgeSpec {
  readonly model: Model;
  readonly prompt: string;
}

/** The check of a judge guardrail; `calls` numbers its model calls (the model's `callIndex`). */
export function judgeCheck(spec: JudgeSpec): (text: string, context: GuardrailContext) => Promise<GuardrailVerdict> {
  let calls = 0;
  return async (text, context) => {
    const callIndex = calls;
    calls += 1;
    const result = await spec.model.call({
      messages: [
        { role: 'system', content: `${spec.prompt}\n\n${INSTRUCTION}` },
        { role: 'user', content: text },
      ],
      tools: [],
      signal: context.signal,
      callIndex,
      onTextDelta: () => {},
    });
    if (result.usage !== undefined) context.charge(result.usage, result.type === 'response' ? result.costUsd : 0);
    if (result.type !== 'response') return { tripped: true, reason: `the judge's model call failed: ${result.code}: ${result.message}` };
    const answer = result.text.trim();
    const verdict = /^(PASS|FAIL)\b[\s:.,-]*([\s\S]*)$/i.exec(answer);
    if (verdict === null) return { tripped: true, reason: `the judge answered neither PASS nor FAIL: ${cut(answer)}` };
    if (verdict[1]!.toUpperCase() === 'PASS') return { tripped: false };
    return { tripped: true, reason: cut(verdict[2]!.trim()) || 'the judge answered FAIL' };
  };
}

function cut(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length <= MAX_REASON_CHARS ? line : `${line.slice(0, MAX_REASON_CHARS - 1)}…`;
}
