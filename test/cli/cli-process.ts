import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository root, the built command, and the Node 24 binary the project runs on. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = fileURLToPath(new URL('../../dist/src/cli/bin.js', import.meta.url));
export const NODE = fileURLToPath(new URL('../../node_modules/.bin/node', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  readonly cwd: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (npx tsc -p tsconfig.json, or npm test which builds)`);
}

/** Starts `dualloop ...args` as a real process (stdout and stderr are pipes, so not a terminal). */
export function startCli(args: readonly string[], options: CliOptions): ChildProcessWithoutNullStreams & { readonly done: Promise<CliResult> } {
  assertBuilt();
  const child = spawn(NODE, [CLI, ...args], { cwd: options.cwd, env: { ...process.env, NO_COLOR: '1', ...options.env } });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return Object.assign(child, { done });
}

/** Runs `dualloop ...args` to the end. */
export function runCli(args: readonly string[], options: CliOptions): Promise<CliResult> {
  return startCli(args, options).done;
}

/** Resolves with the first stdout line that satisfies `predicate` (NDJSON mode). */
export function waitForLine(child: ChildProcessWithoutNullStreams, predicate: (line: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const onData = (chunk: string) => {
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      const found = lines.find(predicate);
      if (found !== undefined) {
        child.stdout.off('data', onData);
        resolve(found);
      }
    };
    child.stdout.on('data', onData);
    child.on('close', () => reject(new Error('the process ended before the expected line')));
  });
}

/** Parses NDJSON, failing on any line that is not one JSON object. */
export function parseNdjson(text: string): Record<string, any>[] {
  const lines = text.split('\n');
  if (lines.pop() !== '') throw new Error('NDJSON output must end with a newline');
  return lines.map((line, index) => {
    const value = JSON.parse(line) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`line ${index + 1} is not a JSON object`);
    return value as Record<string, any>;
  });
}
