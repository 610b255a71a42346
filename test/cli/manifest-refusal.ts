import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runCli } from './cli-process.js';

/**
 * A manifest refused before anything runs: `validate` and `run` each print exactly `problems`
 * (the stderr lines, every problem at once with its line), nothing on stdout, exit 64, and `run`
 * opens no store in `dir`.
 */
export async function expectRefusedByValidateAndRun(dir: string, file: string, problems: readonly string[]): Promise<void> {
  for (const command of ['validate', 'run']) {
    const result = await runCli([command, file], { cwd: dir });
    expect(result.code, command).toBe(64);
    expect(result.stdout, command).toBe('');
    expect(result.stderr.trimEnd().split('\n'), command).toEqual(problems);
  }
  expect(existsSync(join(dir, '.dualloop'))).toBe(false);
}
