import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * vitest's globalSetup: builds dist/ (`npm run build`) when it is missing or older than the
 * sources, before any test file runs. The CLI tests run the built command and the package tests
 * pack dist/, so `npx vitest run <file>` works on a fresh clone, and `npm test` builds only when
 * something changed (ADR 0092).
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** What `npm run build` reads. */
const INPUTS = ['src', 'machines', 'examples', 'scripts/build-viewer.mjs', 'scripts/bundle-entries.mjs', 'tsconfig.json', 'package.json'];
/** What it writes, one per step: tsc (library, CLI), the entries' bundle and the viewer bundle. Each step rewrites every output. */
const OUTPUTS = ['dist/src/index.js', 'dist/src/cli/bin.js', 'dist/bundle/index.js', 'dist/viewer/viewer.js'];

export default function buildDist(): void {
  const reason = staleness();
  if (reason === undefined) return;
  const started = Date.now();
  try {
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'pipe', encoding: 'utf8' });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`npm run build failed (dist/ was ${reason}):\n${stdout}${stderr}`);
  }
  process.stdout.write(`built dist/ (it was ${reason}) in ${((Date.now() - started) / 1_000).toFixed(1)} s\n`);
}

function staleness(): string | undefined {
  let built = Infinity;
  for (const output of OUTPUTS) {
    const path = join(ROOT, output);
    if (!existsSync(path)) return `missing ${output}`;
    built = Math.min(built, statSync(path).mtimeMs);
  }
  const newest = newestInput();
  return newest.mtimeMs > built ? `older than ${newest.path}` : undefined;
}

function newestInput(): { path: string; mtimeMs: number } {
  let newest = { path: '', mtimeMs: 0 };
  const visit = (relative: string) => {
    const stats = statSync(join(ROOT, relative), { throwIfNoEntry: false });
    if (stats === undefined) return;
    if (stats.isDirectory()) {
      for (const entry of readdirSync(join(ROOT, relative))) visit(join(relative, entry));
    } else if (stats.mtimeMs > newest.mtimeMs) {
      newest = { path: relative, mtimeMs: stats.mtimeMs };
    }
  };
  for (const input of INPUTS) visit(input);
  return newest;
}
