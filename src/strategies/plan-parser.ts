/**
 * Turns a planner's reply into a plan artifact, validated with zod. Accepted, in this order:
 * JSON in a fenced block (```json … ```), bare JSON (the whole reply, or the span from its first
 * `{` to its last `}`), and, as a fallback, a plain numbered list (`1. …` or `1) …`). JSON is
 * `{ "steps": [...] }` or a bare array; a step is a string or `{ "description": "…" }` (other
 * keys are ignored). Anything else is a problem, named, never a silent empty plan.
 */
import { z } from 'zod';
import { lazySchema, type SchemaOf } from '../contracts/lazy-schema.js';

export interface PlanStep {
  readonly description: string;
}

/** A plan, or a hybrid review: `steps` absent means "keep the remaining steps". */
export interface PlanArtifact {
  readonly steps?: readonly PlanStep[];
  readonly reason?: string;
  readonly summary?: string;
}

export interface StepLimits {
  readonly min: number;
  readonly max: number;
}

export type PlanParse = { readonly ok: true; readonly artifact: PlanArtifact } | { readonly ok: false; readonly problem: string };

const StepSchema = lazySchema(() => z.preprocess(
  (step) => (typeof step === 'string' ? { description: step } : step),
  z.object({ description: z.string().trim().min(1, 'a step must not be empty') }, { error: 'a step must be text or {"description": "…"}' }),
));
const StepsSchema = lazySchema(() => z.array(StepSchema()));
const ObjectSchema = lazySchema(() => z.object({
  steps: StepsSchema().optional(),
  keep: z.boolean().optional(),
  reason: z.string().optional(),
  summary: z.string().optional(),
}));

const FENCE = /```[ \t]*([A-Za-z0-9_-]*)[^\n]*\n([\s\S]*?)```/g;
const NUMBERED = /^\s*\d+\s*[.)]\s+(\S.*?)\s*$/;

type Extracted =
  | { readonly kind: 'json'; readonly value: unknown; readonly where: string }
  | { readonly kind: 'list'; readonly steps: readonly string[] }
  | { readonly kind: 'problem'; readonly problem: string };

/** Finds the plan in a reply: fenced JSON, bare JSON, or a numbered list. */
function extract(text: string): Extracted {
  for (const match of text.matchAll(FENCE)) {
    const language = (match[1] ?? '').toLowerCase();
    const body = (match[2] ?? '').trim();
    if (language !== 'json' && !/^[[{]/.test(body)) continue;
    try {
      return { kind: 'json', value: JSON.parse(body), where: 'the fenced JSON block' };
    } catch (error) {
      return { kind: 'problem', problem: `the fenced JSON block is not valid JSON (${(error as Error).message})` };
    }
  }
  const trimmed = text.trim();
  const looksLikeJson = /^[[{]/.test(trimmed);
  const candidates = looksLikeJson ? [trimmed] : objectSpan(trimmed);
  for (const candidate of candidates) {
    try {
      return { kind: 'json', value: JSON.parse(candidate), where: 'the JSON reply' };
    } catch (error) {
      if (looksLikeJson) return { kind: 'problem', problem: `the reply looks like JSON but is not valid JSON (${(error as Error).message})` };
    }
  }
  const steps = trimmed
    .split(/\r?\n/)
    .map((line) => NUMBERED.exec(line)?.[1])
    .filter((step): step is string => step !== undefined);
  if (steps.length > 0) return { kind: 'list', steps };
  return {
    kind: 'problem',
    problem: `no plan found in the reply: expected JSON ({"steps": [...]}) in a fenced block or bare, or a numbered list; got ${quote(trimmed)}`,
  };
}

function objectSpan(text: string): string[] {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  return start >= 0 && end > start ? [text.slice(start, end + 1)] : [];
}

function quote(text: string): string {
  if (text === '') return 'an empty reply';
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);
}

function toArtifact(value: z.infer<SchemaOf<typeof ObjectSchema>>): PlanArtifact {
  return {
    ...(value.steps === undefined || value.keep === true ? {} : { steps: value.steps }),
    ...(value.reason === undefined ? {} : { reason: value.reason }),
    ...(value.summary === undefined ? {} : { summary: value.summary }),
  };
}

function read(text: string): PlanParse {
  const found = extract(text);
  if (found.kind === 'problem') return { ok: false, problem: found.problem };
  if (found.kind === 'list') return { ok: true, artifact: { steps: found.steps.map((description) => ({ description })) } };
  const parsed = ObjectSchema().safeParse(Array.isArray(found.value) ? { steps: found.value } : found.value);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.length === 0 ? '(root)' : issue.path.join('.')}: ${issue.message}`)
      .join('; ');
    return { ok: false, problem: `${found.where} is not a plan (${issues}); expected {"steps": ["…", {"description": "…"}]}` };
  }
  return { ok: true, artifact: toArtifact(parsed.data) };
}

function countProblem(count: number, limits: StepLimits, what: string): string | undefined {
  if (count >= limits.min && count <= limits.max) return undefined;
  const range = limits.max === Number.POSITIVE_INFINITY ? `at least ${limits.min}` : limits.min === limits.max ? `${limits.min}` : `${limits.min}–${limits.max}`;
  return `${what} has ${count} step${count === 1 ? '' : 's'}; ${range} required`;
}

/** A plan: steps are required and their number must be within `limits`. */
export function parsePlan(text: string, limits: StepLimits): PlanParse {
  const parsed = read(text);
  if (!parsed.ok) return parsed;
  const steps = parsed.artifact.steps;
  if (steps === undefined) return { ok: false, problem: 'the plan has no "steps"' };
  const problem = countProblem(steps.length, limits, 'the plan');
  return problem === undefined ? parsed : { ok: false, problem };
}

/**
 * A review of the remaining steps (hybrid): `{"keep": true}` or no `steps` keeps them; `steps`
 * (at most `limits.max`, possibly none: the goal is reached) replaces them; a numbered list
 * replaces them too.
 */
export function parseReview(text: string, limits: StepLimits): PlanParse {
  const parsed = read(text);
  if (!parsed.ok || parsed.artifact.steps === undefined) return parsed;
  const problem = countProblem(parsed.artifact.steps.length, { min: 0, max: limits.max }, 'the revised plan');
  return problem === undefined ? parsed : { ok: false, problem };
}
