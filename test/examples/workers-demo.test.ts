import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

/*
 * `npm run demo:workers` (README, docs/scale-out.md) as a newcomer runs it, minus the build that
 * the test setup already did: its own throwaway PostgreSQL, three worker processes, a submitter,
 * one worker SIGKILLed mid-run. It must say that every run finished exactly once, show the killed
 * worker's run finished by another one, and leave no server data behind.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = fileURLToPath(new URL('../../node_modules/.bin/node', import.meta.url));
const DEMO = fileURLToPath(new URL('../../dist/examples/workers-demo/main.js', import.meta.url));

it('npm run demo:workers: every run finishes exactly once although a worker is SIGKILLed mid-run; the server is stopped and its data removed', async () => {
  const child = spawn(NODE, [DEMO], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('exit', (exitCode) => resolve(exitCode)));
  expect(code, `${stdout}\n${stderr}`).toBe(0);

  expect(stdout).toMatch(/^SIGKILL worker-\d \(pid \d+\) two tool calls into run expenses-\d$/m);
  const killed = /^SIGKILL (worker-\d) .* into run (expenses-\d)$/m.exec(stdout)!;
  const [, victim, run] = killed;
  // The killed worker's run: its slices name the victim, then the worker that finished it.
  const slices = new RegExp(`✓ ${run}  goal_achieved, 1 workflow_end, \\d+ tool executions.*\\n\\s+slices: ${victim} \\(SIGKILLed after 2 tool calls\\) → (worker-\\d) \\(ended: goal_achieved\\)`).exec(stdout);
  expect(slices, stdout).not.toBeNull();
  expect(slices![1]).not.toBe(victim);
  expect(stdout.match(/^ {2}✓ expenses-\d {2}goal_achieved, 1 workflow_end/gm)).toHaveLength(6);
  expect(stdout).not.toContain('✗');
  expect(stdout).toContain('✓ every run finished exactly once: 6 runs, 6 workflow_end events, no recorded tool call executed twice');

  const directory = /^ {2}stopped; removed (\S+)$/m.exec(stdout)?.[1];
  expect(directory).toBeDefined();
  expect(existsSync(directory!)).toBe(false);
}, 180_000);
