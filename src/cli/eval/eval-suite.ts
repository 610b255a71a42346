/**
 * An eval suite file (`dualloop eval <suite.yaml>`, docs/evals.md): the workflow's manifest, the
 * candidate's changes to it, the cases, the scorers and how to run them. Problems come back at
 * once, each on its line, like a manifest's.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import type { EvalCase } from '../../contracts/evals.js';
import type { CheckpointStore } from '../../contracts/store.js';
import { parseForkPoint } from '../commands/fork-command.js';
import { displayPath } from '../../manifest/load-manifest.js';
import { ModelBlockSchema } from '../../manifest/manifest-schema.js';
import { readYamlFile } from '../../manifest/read-yaml-file.js';
import { schemaIssues } from '../../manifest/schema-issues.js';
import { withLine, type SourceIssue, type YamlSource } from '../../manifest/yaml-source.js';

const MAX_CASES_FILE_BYTES = 16 * 1024 * 1024;

const ratio = z.number().positive().describe('How many times the baseline the candidate may take');
/** A scorer by name alone (`outputEquals`) or with its options (`{ name: costWithin, ratio: 1.2 }`). */
const ScorerSpec = z.preprocess(
  (value) => (typeof value === 'string' ? { name: value } : value),
  z.discriminatedUnion('name', [
    z.strictObject({ name: z.literal('stopReasonMatches') }),
    z.strictObject({ name: z.literal('outputEquals') }),
    z.strictObject({ name: z.literal('toolTrajectoryMatches'), tolerance: z.number().int().min(0).optional() }),
    z.strictObject({ name: z.literal('costWithin'), ratio }),
    z.strictObject({ name: z.literal('turnsWithin'), ratio }),
    z.strictObject({ name: z.literal('outputMatchesSchema'), schema: z.record(z.string(), z.unknown()) }),
    z.strictObject({
      name: z.literal('judge'),
      rubric: z.string().trim().min(1),
      model: ModelBlockSchema.describe('The judge model (paths relative to the suite file)'),
      maxCostUsd: z.number().positive().optional(),
      as: z.string().min(1).optional().describe("The scorer's name in the report and for --fail-under (default judge)"),
    }),
  ], { error: 'must be stopReasonMatches, outputEquals, toolTrajectoryMatches, costWithin, turnsWithin, outputMatchesSchema or judge' }),
);
export type ScorerSpec = z.infer<typeof ScorerSpec>;

const CaseSpec = z.union([
  z.strictObject({ run: z.string().min(1), at: z.string().min(1).optional(), expected: z.unknown().optional(), name: z.string().min(1).optional() }),
  z.strictObject({ tasks: z.array(z.unknown()).min(1), expected: z.unknown().optional(), name: z.string().min(1).optional() }),
  z.strictObject({
    runs: z.strictObject({ name: z.string().min(1).optional(), stop: z.string().min(1).optional(), since: z.string().min(1).optional(), limit: z.number().int().positive().max(10_000).optional() }),
  }),
  z.strictObject({ file: z.string().min(1) }),
]);

export const EvalSuiteSchema = z.strictObject({
  suite: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1–64 letters, digits, ".", "_" or "-"'),
  manifest: z.string().min(1).describe('The workflow, relative to the suite file'),
  candidate: z.record(z.string(), z.unknown()).optional().describe('Manifest fields the candidate changes (model, system, bounds, strategy, tools, policy, guardrails…)'),
  tools: z.enum(['recorded', 'recorded-or-live', 'live']).optional(),
  cases: z.array(CaseSpec).min(1),
  scorers: z.array(ScorerSpec).min(1),
  concurrency: z.number().int().positive().optional(),
  maxCostUsd: z.number().positive().optional(),
});
export type EvalSuite = z.infer<typeof EvalSuiteSchema>;

export interface LoadedSuite {
  readonly suite: EvalSuite;
  readonly path: string;
  readonly directory: string;
  readonly source: YamlSource;
}

export async function loadSuite(suitePath: string, cwd: string): Promise<{ ok: true; value: LoadedSuite } | { ok: false; issues: readonly SourceIssue[] }> {
  const path = resolve(cwd, suitePath);
  const parsed = await readYamlFile(path, displayPath(path, cwd));
  if (!parsed.ok) return parsed;
  const result = EvalSuiteSchema.safeParse(parsed.value);
  if (!result.success) return { ok: false, issues: schemaIssues(result.error, parsed.source, EvalSuiteSchema) };
  const badPoints = result.data.cases.flatMap((entry, index) => ('at' in entry && entry.at !== undefined && pointOf(entry.at) === undefined ? [withLine(parsed.source, ['cases', index, 'at'], 'must be <task>[:<turn>] (as fork --at)')] : []));
  if (badPoints.length > 0) return { ok: false, issues: badPoints };
  return { ok: true, value: { suite: result.data, path, directory: dirname(path), source: parsed.source } };
}

/** `3`, `3:6` as a fork point; a task id is not a numbered point (recorded tasks are counted). */
function pointOf(text: string): { task: number; turn?: number } | undefined {
  const point = parseForkPoint(text);
  return point !== undefined && typeof point.task === 'number' ? (point as { task: number; turn?: number }) : undefined;
}

/** The suite's cases, its filters and files expanded in order: runs listed newest first, files line by line. */
export async function suiteCases(loaded: LoadedSuite, store: CheckpointStore): Promise<{ ok: true; value: EvalCase[] } | { ok: false; issues: readonly SourceIssue[] }> {
  const cases: EvalCase[] = [];
  const issues: SourceIssue[] = [];
  for (const [index, entry] of loaded.suite.cases.entries()) {
    if ('run' in entry) {
      const at = entry.at === undefined ? undefined : pointOf(entry.at);
      cases.push({ runId: entry.run, ...(at === undefined ? {} : { at }), ...(entry.expected === undefined ? {} : { expected: entry.expected }), ...(entry.name === undefined ? {} : { name: entry.name }) });
    } else if ('tasks' in entry) {
      cases.push({ tasks: entry.tasks, ...(entry.expected === undefined ? {} : { expected: entry.expected }), ...(entry.name === undefined ? {} : { name: entry.name }) });
    } else if ('runs' in entry) {
      const since = entry.runs.since === undefined ? undefined : Date.parse(entry.runs.since);
      if (since !== undefined && Number.isNaN(since)) {
        issues.push(withLine(loaded.source, ['cases', index, 'runs', 'since'], 'must be a date, such as 2026-11-01'));
        continue;
      }
      const runs = await store.listRuns({ limit: 100_000 });
      const picked = runs
        .filter((run) => run.parent === undefined && run.evalOf === undefined && run.stop !== undefined)
        .filter((run) => (entry.runs.name === undefined || run.name === entry.runs.name) && (entry.runs.stop === undefined || run.stop?.reason === entry.runs.stop) && (since === undefined || run.createdAt >= since))
        .slice(0, entry.runs.limit ?? 100);
      if (picked.length === 0) issues.push(withLine(loaded.source, ['cases', index, 'runs'], `no finished run in the store matches ${JSON.stringify(entry.runs)}`));
      for (const run of picked) cases.push({ runId: run.runId });
    } else {
      const read = await casesFile(resolve(loaded.directory, entry.file), entry.file);
      if ('problem' in read) issues.push(withLine(loaded.source, ['cases', index, 'file'], read.problem));
      else cases.push(...read.cases);
    }
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: cases };
}

/** A JSONL file of cases: `{"runId": …, "at"?: {"task": n, "turn"?: m}, "expected"?: …}` or `{"tasks": […], "expected"?: …}` per line. */
async function casesFile(path: string, shown: string): Promise<{ cases: EvalCase[] } | { problem: string }> {
  let text: string;
  try {
    const buffer = await readFile(path);
    if (buffer.length > MAX_CASES_FILE_BYTES) return { problem: `${shown} is larger than ${MAX_CASES_FILE_BYTES} bytes` };
    text = buffer.toString('utf8');
  } catch (error) {
    return { problem: `${shown} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  }
  const cases: EvalCase[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return { problem: `${shown} line ${index + 1} is not JSON` };
    }
    if (typeof value !== 'object' || value === null || !('runId' in value || 'tasks' in value)) return { problem: `${shown} line ${index + 1} is no case: give "runId" or "tasks"` };
    cases.push(value as EvalCase);
  }
  return cases.length === 0 ? { problem: `${shown} holds no case` } : { cases };
}
