import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';

/*
 * A consumer project with dualloop installed from its own `npm pack` tarball (ADR 0094): the
 * tarball's files extracted into node_modules/dualloop as npm would, its `bin` linked, and each
 * of its declared `dependencies` (plus typescript and @types/node, to typecheck) linked to this
 * repository's node_modules, so nothing is fetched: no registry, no cache, no internet. A file
 * missing from `files`, a wrong `exports` path, an undeclared runtime import or a type that does
 * not resolve fails there as it would for a user. Built once per package build (keyed by the
 * newest file of dist/, package.json and README.md), shared by the test files that use it.
 *
 * `{ nodeTypes: false }` is the consumer who never installed @types/node (ADR/0401): its
 * node_modules hold what `npm install <tarball>` installs — every package of the lockfile's
 * runtime closure, at the top as npm hoists them — and nothing else; compiled with
 * `NO_NODE_TYPES_COMPILER_OPTIONS`, which keep TypeScript on those links rather than on the
 * repository's node_modules (where @types/node is) behind them.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

/**
 * Strict TypeScript with `module: nodenext`, as a consumer on Node 22.13+ would write it
 * (`skipLibCheck` as `tsc --init` sets it; test/package/packed-package.test.ts also compiles with
 * `skipLibCheck: false`, ADR 0145).
 */
export const CONSUMER_COMPILER_OPTIONS = {
  target: 'es2023',
  module: 'nodenext',
  strict: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: true,
  types: ['node'],
} as const;

/**
 * The consumer project's directory; its node_modules hold the packed dualloop. `installed` are
 * packages the consumer installed beside it (an optional peer such as `@opentelemetry/api`, an AI
 * SDK provider…), linked at the top of its node_modules where dualloop itself can load them; each
 * list is a project of its own, so the plain one never sees them.
 */
export async function packedConsumer(installed: readonly string[] = [], options: { readonly nodeTypes?: boolean } = {}): Promise<string> {
  const nodeTypes = options.nodeTypes ?? true;
  const variant = createHash('sha1').update(JSON.stringify([CONSUMER_COMPILER_OPTIONS, installed, nodeTypes])).digest('hex').slice(0, 6);
  const family = `dualloop-consumer-${createHash('sha1').update(ROOT).digest('hex').slice(0, 8)}-${variant}-`;
  const dir = join(tmpdir(), `${family}${Math.floor(newestPackageFile())}`);
  if (existsSync(join(dir, 'ready'))) return dir;
  const staging = mkdtempSync(join(tmpdir(), 'dualloop-consumer-staging-'));
  try {
    await buildConsumer(staging, installed, nodeTypes);
    writeFileSync(join(staging, 'ready'), '');
    renameSync(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(join(dir, 'ready'))) throw error;
  }
  for (const old of readdirSync(tmpdir())) {
    if (old.startsWith(family) && join(tmpdir(), old) !== dir) rmSync(join(tmpdir(), old), { recursive: true, force: true });
  }
  return dir;
}

/** Symlinks point into ROOT by absolute path, so renaming `staging` keeps them valid. */
async function buildConsumer(staging: string, extras: readonly string[], nodeTypes: boolean): Promise<void> {
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', staging], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
  const installed = join(staging, 'node_modules', 'dualloop');
  extractPackage(readFileSync(join(staging, filename)), installed);
  const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; bin?: Record<string, string> };
  const linked = nodeTypes ? [...Object.keys(manifest.dependencies ?? {}), 'typescript', '@types/node'] : runtimeClosure();
  for (const name of [...linked, ...extras]) {
    const target = join(ROOT, 'node_modules', name);
    if (!existsSync(target)) throw new Error(`dualloop depends on ${name}, which is not installed in ${ROOT}node_modules: run npm ci`);
    mkdirSync(dirname(join(staging, 'node_modules', name)), { recursive: true });
    symlinkSync(target, join(staging, 'node_modules', name), 'dir');
  }
  mkdirSync(join(staging, 'node_modules', '.bin'));
  for (const [name, path] of Object.entries(manifest.bin ?? {})) symlinkSync(join('..', 'dualloop', path), join(staging, 'node_modules', '.bin', name));
  writeFileSync(join(staging, 'package.json'), `${JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { dualloop: `file:${filename}` } }, null, 2)}\n`);
  writeFileSync(join(staging, 'tsconfig.base.json'), `${JSON.stringify({ compilerOptions: CONSUMER_COMPILER_OPTIONS }, null, 2)}\n`);
}

/** Over `CONSUMER_COMPILER_OPTIONS`, for a `{ nodeTypes: false }` consumer: no ambient types, symlinks kept as the consumer's paths. */
export const NO_NODE_TYPES_COMPILER_OPTIONS = { types: [], preserveSymlinks: true } as const;

/** The packages `npm install` puts at the top of a consumer's node_modules for dualloop: the lockfile's non-dev ones. */
function runtimeClosure(): string[] {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path.startsWith('node_modules/') && !path.slice('node_modules/'.length).includes('node_modules/') && entry.dev !== true)
    .map(([path]) => path.slice('node_modules/'.length))
    .filter((name) => existsSync(join(ROOT, 'node_modules', name)));
}

/** Unpacks an npm tarball (gzip'd ustar, paths under `package/`) into `into`. */
function extractPackage(tgz: Buffer, into: string): void {
  const tar = gunzipSync(tgz);
  let longName: string | undefined;
  for (let offset = 0; offset + 512 <= tar.length; ) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const text = (start: number, length: number) => header.subarray(start, start + length).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(text(124, 12).trim() || '0', 8);
    const type = text(156, 1) || '0';
    const body = tar.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
    if (type === 'x') {
      longName = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString('utf8'))?.[1];
      continue;
    }
    const prefix = text(345, 155);
    const name = longName ?? (prefix === '' ? text(0, 100) : `${prefix}/${text(0, 100)}`);
    longName = undefined;
    const relative = name.replace(/^package\//, '');
    if (relative.split('/').includes('..')) throw new Error(`unsafe path in the tarball: ${name}`);
    const path = join(into, relative);
    if (type === '5') {
      mkdirSync(path, { recursive: true });
    } else if (type === '0') {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, body);
      chmodSync(path, parseInt(text(100, 8).trim() || '644', 8) & 0o777);
    }
  }
}

/** The newest modification time among what `npm pack` packs from dist/, and the manifest. */
function newestPackageFile(): number {
  let newest = 0;
  const visit = (path: string) => {
    const stats = statSync(path, { throwIfNoEntry: false });
    if (stats === undefined) return;
    if (stats.isDirectory()) for (const entry of readdirSync(path)) visit(join(path, entry));
    else newest = Math.max(newest, stats.mtimeMs);
  };
  for (const path of ['dist', 'package.json', 'README.md', 'LICENSE']) visit(join(ROOT, path));
  return newest;
}

export interface CompileResult {
  /** tsc's exit code and output (diagnostics name `<name>.ts(line,col)`). */
  readonly code: number;
  readonly output: string;
}

/**
 * A directory inside the consumer project holding `files` (name → TypeScript source) and a
 * tsconfig extending the consumer's strict one, compiled to `out/` by tsc. `links` are more
 * packages the files import (pino, an AI SDK provider…), linked from this repository's
 * node_modules into the directory's own, so dualloop itself never sees them.
 */
export async function compileInConsumer(
  consumer: string,
  files: Readonly<Record<string, string>>,
  links: readonly string[] = [],
  /** Over the consumer's strict options (e.g. `{ skipLibCheck: false }`). */
  compilerOptions: Readonly<Record<string, unknown>> = {},
): Promise<{ readonly dir: string; readonly compiled: CompileResult }> {
  const dir = mkdtempSync(join(consumer, 'case-'));
  for (const [name, source] of Object.entries(files)) writeFileSync(join(dir, name), source);
  for (const name of links) {
    const target = join(ROOT, 'node_modules', name);
    if (!existsSync(target)) throw new Error(`${name} is not installed in ${ROOT}node_modules: run npm ci`);
    mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true });
    symlinkSync(target, join(dir, 'node_modules', name), 'dir');
  }
  writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify({ extends: '../tsconfig.base.json', compilerOptions: { ...compilerOptions, outDir: 'out', rootDir: '.' }, include: ['*.ts'] }, null, 2)}\n`);
  const tsc = join(ROOT, 'node_modules', '.bin', 'tsc');
  try {
    const { stdout, stderr } = await run(tsc, ['-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
    return { dir, compiled: { code: 0, output: stdout + stderr } };
  } catch (error) {
    const { code, stdout = '', stderr = '' } = error as { code?: number; stdout?: string; stderr?: string };
    return { dir, compiled: { code: typeof code === 'number' ? code : 1, output: stdout + stderr } };
  }
}
