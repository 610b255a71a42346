import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';

/** A fresh directory per test, removed afterwards; returns a function that gives its path. */
export function useTempDir(prefix = 'dualloop-store-'): () => string {
  let directory: string | undefined;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), prefix));
  });
  afterEach(() => {
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
    directory = undefined;
  });
  return () => {
    if (directory === undefined) throw new Error('no temporary directory: call inside a test');
    return directory;
  };
}
