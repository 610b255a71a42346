import { resolve } from 'node:path';

/** The default store of the command, relative to the current directory. */
export const DEFAULT_STORE_PATH = '.dualloop/runs.db';

/** `--store :memory:`: `run` keeps the run in its own memory, in no file (ADR/0408). */
export const MEMORY_STORE = ':memory:';

/**
 * The SQLite file of a command: `--store`, else the manifest's `store.path`, else the default.
 * Only for a flag that is not a `postgres://` URL (src/cli/store-target.ts decides).
 */
export function storePathFor(flag: string | undefined, manifestStore: string | undefined, cwd: string = process.cwd()): string {
  return resolve(cwd, flag ?? manifestStore ?? DEFAULT_STORE_PATH);
}
