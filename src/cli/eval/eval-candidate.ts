/**
 * The suite's candidate (docs/evals.md): the workflow's manifest with the suite's `candidate:`
 * fields in place of its own, checked as a manifest — a problem in a field the candidate changes is
 * named `candidate.<field>` on the suite's line — and its scorers, a judge's model resolved like
 * any model block.
 */
import { relative, resolve } from 'node:path';
import type { EvalScorer } from '../../contracts/evals.js';
import { costWithin, outputEquals, outputMatchesSchema, stopReasonMatches, toolTrajectoryMatches, turnsWithin } from '../../evals/scorers.js';
import { judge } from '../../evals/judge-scorer.js';
import type { LoadedManifest, ManifestResult } from '../../manifest/load-manifest.js';
import { buildKernelOptions, createManifestKernel } from '../../manifest/manifest-kernel.js';
import { ManifestSchema } from '../../manifest/manifest-schema.js';
import { resolveModel } from '../../manifest/resolve-model.js';
import { schemaIssues } from '../../manifest/schema-issues.js';
import { withLine, type SourceIssue } from '../../manifest/yaml-source.js';
import type { PreparedManifest } from '../prepare-manifest.js';
import type { LoadedSuite, ScorerSpec } from './eval-suite.js';

/** The candidate's manifest and kernel options; paths in `candidate:` are relative to the suite file. */
export async function prepareCandidate(workflow: LoadedManifest, suite: LoadedSuite): Promise<ManifestResult<PreparedManifest>> {
  const changes = suite.suite.candidate ?? {};
  const merged = ManifestSchema.safeParse({ ...workflow.manifest, ...rebased(changes, suite.directory, workflow.directory) });
  const relined = (issues: readonly SourceIssue[]) => issues.map((issue) => candidateIssue(issue, workflow, suite, changes));
  if (!merged.success) return { ok: false, issues: relined(schemaIssues(merged.error, workflow.source, ManifestSchema)) };
  const loaded: LoadedManifest = { ...workflow, manifest: merged.data };
  const options = await buildKernelOptions(loaded);
  if (!options.ok) return { ok: false, issues: relined(options.issues) };
  const checked = createManifestKernel(loaded, options.value);
  if (!checked.ok) return { ok: false, issues: relined(checked.issues) };
  return { ok: true, value: { loaded, options: options.value } };
}

/**
 * The candidate's paths (a model's or planner's `script` or `module`, the tools' `module` and
 * builtin roots) rewritten from the suite's directory to the manifest's, which the merged
 * manifest resolves them against.
 */
function rebased(changes: Readonly<Record<string, unknown>>, suiteDirectory: string, manifestDirectory: string): Record<string, unknown> {
  const move = (path: unknown) => (typeof path === 'string' ? relative(manifestDirectory, resolve(suiteDirectory, path)) || '.' : path);
  const withPaths = (block: unknown, fields: readonly string[]) =>
    isRecord(block) ? Object.fromEntries(Object.entries(block).map(([key, value]) => [key, fields.includes(key) ? move(value) : value])) : block;
  const result: Record<string, unknown> = { ...changes };
  for (const key of ['model', 'planner']) if (key in result) result[key] = withPaths(result[key], ['script', 'module']);
  if (isRecord(result['tools'])) {
    const tools = withPaths(result['tools'], ['module']) as Record<string, unknown>;
    if (Array.isArray(tools['builtin'])) tools['builtin'] = tools['builtin'].map((entry) => withPaths(entry, ['root']));
    result['tools'] = tools;
  }
  return result;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An issue in a field the candidate set moves to the suite's `candidate.<field>` line. */
function candidateIssue(issue: SourceIssue, workflow: LoadedManifest, suite: LoadedSuite, changes: Readonly<Record<string, unknown>>): SourceIssue {
  if (issue.file !== workflow.source.file) return issue;
  const segments = issue.path === '' ? [] : issue.path.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part));
  const [first] = segments;
  if (typeof first !== 'string' || !(first in changes)) return issue;
  return withLine(suite.source, ['candidate', ...segments], issue.message);
}

export async function suiteScorers(suite: LoadedSuite, candidate: LoadedManifest): Promise<ManifestResult<EvalScorer[]>> {
  const built = await Promise.all(suite.suite.scorers.map((spec, index) => scorerOf(spec, index, suite, candidate)));
  const issues = built.flatMap((entry) => ('issues' in entry ? entry.issues : []));
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, value: built.flatMap((entry) => ('scorer' in entry ? [entry.scorer] : [])) };
}

async function scorerOf(spec: ScorerSpec, index: number, suite: LoadedSuite, candidate: LoadedManifest): Promise<{ scorer: EvalScorer } | { issues: readonly SourceIssue[] }> {
  switch (spec.name) {
    case 'stopReasonMatches':
      return { scorer: stopReasonMatches() };
    case 'outputEquals':
      return { scorer: outputEquals() };
    case 'toolTrajectoryMatches':
      return { scorer: toolTrajectoryMatches(spec.tolerance === undefined ? {} : { tolerance: spec.tolerance }) };
    case 'costWithin':
      return { scorer: costWithin(spec.ratio) };
    case 'turnsWithin':
      return { scorer: turnsWithin(spec.ratio) };
    case 'outputMatchesSchema':
      try {
        return { scorer: outputMatchesSchema(spec.schema) };
      } catch (error) {
        return { issues: [withLine(suite.source, ['scorers', index, 'schema'], `is not a usable JSON Schema: ${(error as Error).message}`)] };
      }
    case 'judge': {
      // The judge's block is the suite's: its lines and relative paths are the suite file's.
      const resolved = await resolveModel({ ...candidate, source: suite.source, directory: suite.directory }, spec.model, ['scorers', index, 'model']);
      if (resolved.model === undefined) return { issues: resolved.issues };
      return { scorer: judge({ model: resolved.model, rubric: spec.rubric, ...(spec.maxCostUsd === undefined ? {} : { maxCostUsd: spec.maxCostUsd }), ...(spec.as === undefined ? {} : { name: spec.as }) }) };
    }
  }
}
