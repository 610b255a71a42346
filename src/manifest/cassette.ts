import { z } from 'zod';
import type { ScriptStep } from '../testing/scripted-model.js';
import { cassetteKeyIssues, type CassetteTask } from './cassette-by-task.js';
import { readYamlFile, type ParsedFile } from './read-yaml-file.js';
import { schemaIssues } from './schema-issues.js';

const nonNegativeInt = z.number().int().nonnegative();

/** One step of a cassette: the `ScriptStep` of `dualloop/testing`, as data. */
export const CassetteStepSchema = z.strictObject({
  text: z.string().optional(),
  toolCalls: z
    .array(z.strictObject({ name: z.string().min(1), args: z.unknown().optional(), id: z.string().min(1).optional() }))
    .optional(),
  usage: z.strictObject({ inputTokens: nonNegativeInt, outputTokens: nonNegativeInt }).optional(),
  delayMs: nonNegativeInt.optional(),
  error: z.union([z.string().min(1), z.strictObject({ code: z.string().min(1), message: z.string().min(1) })]).optional(),
  costUsd: z.number().nonnegative().optional(),
  finishReason: z.enum(['stop', 'tool_calls', 'length', 'content_filter']).optional(),
  chunks: z.array(z.string()).optional(),
});

const Steps = z.array(CassetteStepSchema).min(1, 'must hold at least one step');

/**
 * A list of steps, one per model call in the run's call order; or a mapping of task ids (and
 * fan-out item ids, `review[2]`) to lists, each played in its task's own call order — the form
 * for graphs, whose tasks call at once in any order (docs/manifest.md, ADR/0430).
 */
export const CassetteSchema = z.union([
  Steps,
  z
    .record(z.string().trim().min(1, 'must be a task id'), Steps)
    .refine((byTask) => Object.keys(byTask).length > 0, 'must answer at least one task'),
]);

/** A cassette as read: answers in call order, or answers by task. */
export type Cassette = readonly ScriptStep[] | Readonly<Record<string, readonly ScriptStep[]>>;

export function isCassetteByTask(cassette: Cassette): cassette is Readonly<Record<string, readonly ScriptStep[]>> {
  return !Array.isArray(cassette);
}

/**
 * Reads a cassette (JSON or YAML). Problems are reported with their path in the cassette and
 * their line; with `tasks`, the keys of a cassette by task that name none of them too, in the
 * same pass as the steps' problems.
 */
export async function loadCassette(path: string, file: string, tasks?: readonly CassetteTask[]): Promise<ParsedFile<Cassette>> {
  const parsed = await readYamlFile(path, file);
  if (!parsed.ok) return parsed;
  const result = CassetteSchema.safeParse(parsed.value);
  const { value } = parsed;
  const keys = tasks === undefined || typeof value !== 'object' || value === null || Array.isArray(value) ? [] : cassetteKeyIssues(Object.keys(value), tasks, parsed.source);
  const issues = [...(result.success ? [] : schemaIssues(result.error, parsed.source, CassetteSchema)), ...keys];
  if (!result.success || issues.length > 0) return { ok: false, issues };
  return { ok: true, value: result.data as Cassette, source: parsed.source };
}
