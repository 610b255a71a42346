/**
 * Regenerates docs/manifest.schema.json from the zod schema: `npm run manifest-schema`.
 * test/manifest/json-schema.test.ts fails while the committed file differs from what this writes.
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { MANIFEST_SCHEMA_FILE, manifestJsonSchemaText } from './manifest-json-schema.js';

const target = fileURLToPath(new URL(`../../../${MANIFEST_SCHEMA_FILE}`, import.meta.url));
await writeFile(target, manifestJsonSchemaText());
process.stdout.write(`wrote ${MANIFEST_SCHEMA_FILE}\n`);
