import { FailureError } from '../errors.js';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The files `npm run build` puts in dist/viewer/ (scripts/build-viewer.mjs), by URL path. */
const FILES: Readonly<Record<string, { readonly file: string; readonly type: string }>> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/assets/viewer.js': { file: 'viewer.js', type: 'text/javascript; charset=utf-8' },
  '/assets/viewer.css': { file: 'viewer.css', type: 'text/css; charset=utf-8' },
};

/**
 * Where the built page is: dist/viewer/ next to the compiled server (dist/src/viewer/ → dist/viewer/),
 * or, when the server runs from its sources (tests), the repository's dist/viewer/.
 */
export function findAssetsDirectory(explicit?: string): string {
  const candidates = explicit !== undefined ? [explicit] : [new URL('../../viewer/', import.meta.url), new URL('../../dist/viewer/', import.meta.url)].map((url) => fileURLToPath(url));
  const found = candidates.find((directory) => existsSync(join(directory, 'index.html')));
  if (found === undefined) throw new FailureError({ code: 'internal_error', message: `the viewer's page is not built (looked in ${candidates.join(', ')}): run \`npm run build\`` });
  return found;
}

/** The asset for a URL path, or undefined. Files are read on request: a rebuilt page shows on reload. */
export async function readAsset(directory: string, path: string): Promise<{ readonly body: Buffer; readonly type: string } | undefined> {
  const entry = FILES[path];
  if (entry === undefined) return undefined;
  return { body: await readFile(join(directory, entry.file)), type: entry.type };
}
