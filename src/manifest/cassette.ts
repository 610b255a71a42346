import { z } from 'zod';
import type { ScriptStep } from '../testing/scripted-model.js';
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

export const CassetteSchema = z.array(CassetteStepSchema).min(1, 'must hold at least one step');

/**
 * Reads a cassette: a JSON or YAML array of scripted model answers, one per model call, in
 * order. Problems are reported with their path in the cassette and their line.
 */
export async function loadCassette(path: string, file: string): Promise<ParsedFile<readonly ScriptStep[]>> {
  const parsed = await readYamlFile(path, file);
  if (!parsed.ok) return parsed;
  const result = CassetteSchema.safeParse(parsed.value);
  if (!result.success) return { ok: false, issues: schemaIssues(result.error, parsed.source, CassetteSchema) };
  return { ok: true, value: result.data as readonly ScriptStep[], source: parsed.source };
}
