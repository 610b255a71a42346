import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { stringify } from 'yaml';

/** A temporary directory per test, removed after it; the command runs with it as cwd. */
export function useWorkspace(): () => Workspace {
  let current: Workspace | undefined;
  afterEach(() => {
    if (current !== undefined) rmSync(current.dir, { recursive: true, force: true });
    current = undefined;
  });
  return () => {
    current ??= createWorkspace();
    return current;
  };
}

export interface Workspace {
  readonly dir: string;
  /** Writes a file (objects as YAML) and returns its path relative to the workspace. */
  write(name: string, content: string | object): string;
  path(name: string): string;
}

function createWorkspace(): Workspace {
  const dir = mkdtempSync(join(tmpdir(), 'dualloop-cli-'));
  return {
    dir,
    write(name, content) {
      writeFileSync(join(dir, name), typeof content === 'string' ? content : stringify(content));
      return name;
    },
    path: (name) => join(dir, name),
  };
}
