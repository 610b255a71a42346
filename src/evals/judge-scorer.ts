/**
 * `judge({ model, rubric, maxCostUsd? })`: an LLM judge (docs/evals.md). One model call per case
 * shows the rubric, the expected value, the baseline's output and the candidate's, and asks for a
 * line `SCORE: <0..1> — <reason>`. Its spending is its own budget, never the suite's or a case's:
 * once `maxCostUsd` is spent, further cases score 0 saying so. An answer without a score, or a
 * failed call, scores 0 with the reason.
 */
import type { EvalScorer, ScoreVerdict } from '../contracts/evals.js';
import type { Model } from '../contracts/model.js';
import { canonicalJson } from '../loop/tool-call-key.js';
import { outputOf } from './scorers.js';

const INSTRUCTION = 'Score the CANDIDATE output against the rubric, from 0 (fails it) to 1 (meets it fully). Answer with one line: SCORE: <number between 0 and 1> — <one-sentence reason>.';
const MAX_SHOWN_CHARS = 20_000;

export interface JudgeScorerOptions {
  readonly model: Model;
  readonly rubric: string;
  /** The judge's own budget in USD; unlimited by default. */
  readonly maxCostUsd?: number;
  /** The scorer's name in the report (default `judge`). */
  readonly name?: string;
}

export function judge(options: JudgeScorerOptions): EvalScorer & { readonly spentUsd: () => number } {
  let spent = 0;
  let calls = 0;
  return {
    name: options.name ?? 'judge',
    spentUsd: () => spent,
    async score(candidate, baseline, expected): Promise<ScoreVerdict> {
      if (options.maxCostUsd !== undefined && spent >= options.maxCostUsd) return { score: 0, reason: `the judge's budget is spent ($${spent.toFixed(6)} of $${options.maxCostUsd})` };
      const shown = [
        `RUBRIC:\n${options.rubric}`,
        ...(expected === undefined ? [] : [`EXPECTED:\n${show(expected)}`]),
        ...(baseline === undefined ? [] : [`BASELINE output:\n${show(outputOf(baseline.result))}`]),
        `CANDIDATE output:\n${show(outputOf(candidate.result))}`,
      ].join('\n\n');
      const callIndex = calls;
      calls += 1;
      const result = await options.model.call({
        messages: [
          { role: 'system', content: INSTRUCTION },
          { role: 'user', content: shown },
        ],
        tools: [],
        signal: new AbortController().signal,
        callIndex,
        onTextDelta: () => undefined,
      });
      if (result.type === 'response') spent += Number.isFinite(result.costUsd) ? result.costUsd : 0;
      if (result.type !== 'response') return { score: 0, reason: `the judge's call failed: ${result.code}: ${result.message}` };
      const found = /SCORE:\s*([01](?:\.\d+)?|\.\d+)\s*[—–:-]?\s*(.*)/i.exec(result.text);
      if (found === null) return { score: 0, reason: `the judge gave no score: ${result.text.trim().slice(0, 200)}` };
      const score = Math.min(1, Math.max(0, Number(found[1])));
      return { score, reason: found[2]!.trim().slice(0, 300) || 'no reason given' };
    },
  };
}

function show(value: unknown): string {
  const text = typeof value === 'string' ? value : canonicalJson(value);
  return text.length <= MAX_SHOWN_CHARS ? text : `${text.slice(0, MAX_SHOWN_CHARS)}… (cut)`;
}
