/**
 * A task's `output` as given — a zod schema (API) or a JSON Schema object (manifest) — turned into
 * the JSON Schema stored with the run, so that a resume in another process checks answers the
 * same way without the caller's code. A zod schema's refinements and transforms are code, which
 * JSON Schema cannot hold: they are not applied (docs/workflows.md).
 */
import { z } from 'zod';
import type { JsonSchema } from '../contracts/turn-protocol.js';

/** Whether a value is a zod schema (zod 4 keeps its internals under `_zod`). */
export function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

/** The JSON Schema of an `output` option, or the reason it has none. */
export function outputJsonSchema(value: unknown): { readonly schema: JsonSchema } | { readonly problem: string } {
  if (isZodSchema(value)) {
    try {
      const { $schema: _dialect, ...schema } = z.toJSONSchema(value, { io: 'output', unrepresentable: 'throw' }) as Record<string, unknown>;
      return { schema };
    } catch (error) {
      return { problem: `must be a zod schema that JSON Schema can express (${error instanceof Error ? error.message : String(error)})` };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: 'must be a zod schema or a JSON Schema object' };
  try {
    z.fromJSONSchema(value as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    return { problem: `is not a JSON Schema this version can check (${error instanceof Error ? error.message : String(error)})` };
  }
  // A copy through JSON: what is stored is exactly what a resume will read.
  return { schema: JSON.parse(JSON.stringify(value)) as JsonSchema };
}
