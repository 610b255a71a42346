import { z } from 'zod';
import { ManifestSchema } from './manifest-schema.js';

/** Where the generated schema is committed, relative to the package root. */
export const MANIFEST_SCHEMA_FILE = 'docs/manifest.schema.json';

/**
 * The JSON Schema of a manifest, generated from the zod schema (so the two cannot drift), for
 * editor completion: `# yaml-language-server: $schema=<path>/docs/manifest.schema.json`.
 */
export function manifestJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(ManifestSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return { ...generated, title: 'dualloop manifest', description: 'A workflow for `dualloop run` (docs/manifest.md).' };
}

/** The file's exact text: two-space JSON and a final newline. */
export function manifestJsonSchemaText(): string {
  return `${JSON.stringify(manifestJsonSchema(), null, 2)}\n`;
}
