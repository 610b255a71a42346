import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { displayPath } from '../../manifest/load-manifest.js';
import { complain, type CommandIO } from '../command-io.js';
import { EXIT } from '../exit-codes.js';
import { shellWord } from '../postgres-url.js';
import { STARTER_MANIFEST, starterFiles } from '../starter-files.js';

export interface InitFlags {
  /** Overwrite files that exist. */
  readonly force?: boolean;
}

/**
 * `dualloop init [dir]`: writes a starter manifest, its cassette and a tools module into `dir`
 * (default: the current directory, created when missing), which `dualloop run` runs offline at
 * once. Refuses to overwrite an existing file unless `--force` (exit 64, naming them).
 */
export async function initCommand(dir: string | undefined, flags: InitFlags, io: CommandIO): Promise<number> {
  const target = resolve(io.cwd, dir ?? '.');
  const files = starterFiles(schemaPathFrom(target));
  const existing = Object.keys(files).filter((name) => existsSync(resolve(target, name)));
  if (existing.length > 0 && flags.force !== true) {
    complain(io, `${existing.map((name) => displayPath(resolve(target, name), io.cwd)).join(', ')} already exist${existing.length === 1 ? 's' : ''}: nothing written (--force overwrites)`);
    return EXIT.usage;
  }
  mkdirSync(target, { recursive: true });
  for (const [name, content] of Object.entries(files)) writeFileSync(resolve(target, name), content);
  const manifest = displayPath(resolve(target, STARTER_MANIFEST), io.cwd);
  io.stdout.write(`wrote ${Object.keys(files).map((name) => displayPath(resolve(target, name), io.cwd)).join(', ')}\n`);
  io.stdout.write(`run it (offline, on the recorded model):  ${io.command} run ${shellWord(manifest)}\n`);
  return EXIT.completed;
}

/** The manifest schema shipped in this package (docs/manifest.schema.json), relative to `target`. */
function schemaPathFrom(target: string): string | undefined {
  for (let up = '../'; up.length <= 12; up += '../') {
    const candidate = fileURLToPath(new URL(`${up}docs/manifest.schema.json`, import.meta.url));
    if (existsSync(candidate)) return relative(target, candidate).split(sep).join('/');
  }
  return undefined;
}
