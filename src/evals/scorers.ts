/**
 * The built-in scorers (docs/evals.md, "Scorers"). Each answers a score in [0, 1] with a reason;
 * a scorer that needs a baseline or an expected value the case does not have scores 0 and says so.
 */
import type { EvalRun, EvalScorer, ScoreVerdict } from '../contracts/evals.js';
import type { WorkflowResult } from '../contracts/results.js';
import type { JsonSchema } from '../contracts/turn-protocol.js';
import { outputJsonSchema } from '../graph/output-schema.js';
import { canonicalJson } from '../loop/tool-call-key.js';
import { checkValue } from '../output/output-validator.js';
import { describeOutputIssues } from '../contracts/typed-output.js';
import { ConfigError } from '../errors.js';

/** The workflow's output: its last task's (a typed value, or the text). */
export function outputOf(result: WorkflowResult): unknown {
  return result.tasks.at(-1)?.output;
}

const missing = (what: string): ScoreVerdict => ({ score: 0, reason: `the case has no ${what}` });

/** 1 when the candidate stopped for the same reason as the baseline (or as `expected.stop` when the case gives one). */
export function stopReasonMatches(): EvalScorer {
  return {
    name: 'stopReasonMatches',
    score(candidate, baseline, expected) {
      const wanted = expectedStop(expected) ?? baseline?.result.stop.reason;
      if (wanted === undefined) return missing('baseline or expected stop reason');
      const got = candidate.result.stop.reason;
      return got === wanted ? { score: 1, reason: `both ${got}` } : { score: 0, reason: `${got}, expected ${wanted}` };
    },
  };
}

/** 1 when the candidate's output deeply equals `expected` (or, without one, the baseline's output); key order aside. */
export function outputEquals(): EvalScorer {
  return {
    name: 'outputEquals',
    score(candidate, baseline, expected) {
      const wanted = expected !== undefined ? valueOf(expected) : baseline === undefined ? undefined : { value: outputOf(baseline.result) };
      if (wanted === undefined) return missing('baseline or expected output');
      const got = outputOf(candidate.result);
      return canonicalJson(got) === canonicalJson(wanted.value) ? { score: 1, reason: 'equal' } : { score: 0, reason: `got ${preview(got)}, expected ${preview(wanted.value)}` };
    },
  };
}

/** 1 when the candidate's output (parsed from JSON when it is text) matches the schema (a zod schema or a JSON Schema). */
export function outputMatchesSchema(schema: unknown): EvalScorer {
  const converted = outputJsonSchema(schema);
  if ('problem' in converted) throw new ConfigError({ message: 'Invalid outputMatchesSchema scorer', issues: [{ path: 'schema', message: converted.problem }] });
  const json: JsonSchema = converted.schema;
  return {
    name: 'outputMatchesSchema',
    score(candidate) {
      let output = outputOf(candidate.result);
      if (typeof output === 'string') {
        try {
          output = JSON.parse(output) as unknown;
        } catch {
          return { score: 0, reason: 'the output is text that is not JSON' };
        }
      }
      const checked = checkValue(json, output, 64);
      return checked.ok ? { score: 1, reason: 'matches' } : { score: 0, reason: describeOutputIssues(checked.issues) };
    },
  };
}

/**
 * The candidate's tool names, in order, against the baseline's: 1 when they are the same, else
 * 1 - (edit distance / longer length); with `tolerance` (edits allowed, default 0) up to that many
 * edits still score 1.
 */
export function toolTrajectoryMatches(options: { readonly tolerance?: number } = {}): EvalScorer {
  const tolerance = options.tolerance ?? 0;
  return {
    name: 'toolTrajectoryMatches',
    score(candidate, baseline) {
      if (baseline === undefined) return missing('baseline');
      const [got, wanted] = [toolNames(candidate), toolNames(baseline)];
      const distance = editDistance(got, wanted);
      const longest = Math.max(got.length, wanted.length);
      const reason = `${got.join(' → ') || '(none)'} vs ${wanted.join(' → ') || '(none)'}: ${distance} edit${distance === 1 ? '' : 's'}`;
      if (distance <= tolerance) return { score: 1, reason };
      return { score: longest === 0 ? 1 : Math.max(0, 1 - distance / longest), reason };
    },
  };
}

/** 1 when the candidate cost at most `ratio` times the baseline's; else baseline × ratio / candidate. */
export function costWithin(ratio: number): EvalScorer {
  return withinRatio('costWithin', ratio, (run) => run.result.metrics.costUsd, (value) => `$${value.toFixed(6)}`);
}

/** 1 when the candidate took at most `ratio` times the baseline's turns; else baseline × ratio / candidate. */
export function turnsWithin(ratio: number): EvalScorer {
  return withinRatio('turnsWithin', ratio, (run) => run.result.metrics.turns, (value) => `${value} turns`);
}

function withinRatio(name: string, ratio: number, measure: (run: EvalRun) => number, show: (value: number) => string): EvalScorer {
  if (!(typeof ratio === 'number' && Number.isFinite(ratio) && ratio > 0)) throw new ConfigError({ message: `Invalid ${name} scorer`, issues: [{ path: 'ratio', message: 'must be a positive number' }] });
  return {
    name,
    score(candidate, baseline) {
      if (baseline === undefined) return missing('baseline');
      const [got, allowed] = [measure(candidate), measure(baseline) * ratio];
      const reason = `${show(got)} against ${show(measure(baseline))} × ${ratio}`;
      return got <= allowed ? { score: 1, reason } : { score: Math.max(0, allowed / got), reason };
    },
  };
}

function toolNames(run: EvalRun): string[] {
  return run.result.tasks.flatMap((task) => task.turns.flatMap((turn) => turn.toolCalls.map((call) => call.name)));
}

function editDistance(a: readonly string[], b: readonly string[]): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

/** `expected` may be the output itself, or `{ output, stop }`. */
function valueOf(expected: unknown): { value: unknown } {
  return isExpectation(expected) && 'output' in expected ? { value: expected.output } : { value: expected };
}

function expectedStop(expected: unknown): string | undefined {
  return isExpectation(expected) && typeof expected.stop === 'string' ? expected.stop : undefined;
}

function isExpectation(value: unknown): value is { output?: unknown; stop?: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && ('stop' in value || 'output' in value) && Object.keys(value).every((key) => key === 'stop' || key === 'output');
}

function preview(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : canonicalJson(value);
  return text.length <= 120 ? text : `${text.slice(0, 119)}…`;
}
