import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MANIFEST_SCHEMA_FILE, manifestJsonSchema, manifestJsonSchemaText } from '../../src/manifest/manifest-json-schema.js';

describe('docs/manifest.schema.json', () => {
  it('is what the zod schema generates (regenerate with `npm run manifest-schema`)', () => {
    const committed = readFileSync(fileURLToPath(new URL(`../../${MANIFEST_SCHEMA_FILE}`, import.meta.url)), 'utf8');
    expect(committed, 'docs/manifest.schema.json is stale: run `npm run manifest-schema`').toBe(manifestJsonSchemaText());
  });

  it('describes the top-level fields and requires name and model', () => {
    const schema = manifestJsonSchema() as { properties: Record<string, unknown>; required: string[]; additionalProperties: boolean };
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['name', 'model', 'system', 'tools', 'tasks', 'bounds', 'policy', 'store', 'strategy']));
    expect(schema.required).toEqual(['name', 'model']);
    expect(schema.additionalProperties).toBe(false);
  });
});
