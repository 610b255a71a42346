// Every command that takes --store against a real Postgres (the suite's server): the URL is
// opened as Postgres everywhere, never taken for a file, and its password never printed.
import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { postgresUrl, useSchemas } from '../support/postgres.js';
import { readEvents } from '../viewer/sse-client.js';
import { parseNdjson, ROOT, runCli, startCli, waitForLine } from './cli-process.js';
import { useWorkspace } from './workspace.js';

const workspace = useWorkspace();
const schema = useSchemas('cli');

/** The suite's server with a fresh schema: `--store` as a user would type it (password included). */
function storeUrl(): { readonly url: string; readonly password: string } {
  const url = new URL(postgresUrl());
  url.searchParams.set('schema', schema());
  return { url: url.toString(), password: decodeURIComponent(url.password) };
}

function workflow(fields: Record<string, unknown>, cassette: readonly object[]): string {
  const { write } = workspace();
  write('cassette.yaml', cassette);
  return write('manifest.yaml', { name: 'pg-workflow', model: { provider: 'scripted', script: './cassette.yaml' }, ...fields });
}

/** Nothing was written to the working directory but the test's own files: no SQLite file named after a URL. */
function onlyTestFiles(dir: string): string[] {
  return readdirSync(dir).filter((name) => !['cassette.yaml', 'manifest.yaml'].includes(name));
}

function expectNoSecret(texts: readonly string[], secret: string): void {
  if (secret === '') return;
  for (const text of texts) expect(text).not.toContain(secret);
}

/** The argument words of the `dualloop resume …` hint in `text` (it may quote the URL). */
function resumeHint(text: string): string[] {
  const line = /dualloop (resume [^\n)]*)/.exec(text)?.[1];
  if (line === undefined) throw new Error(`no resume hint in:\n${text}`);
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2]!);
}

describe('--store postgres://… on every command', () => {
  it('run, runs, audit, view and fork keep the run in Postgres; nothing is written to a file; no password is printed', async () => {
    const { url, password } = storeUrl();
    const { dir } = workspace();
    const ran = await runCli(['run', `${ROOT}examples/expense-report.yaml`, '--store', url, '--run-id', 'pg-complete'], { cwd: dir });
    expect(ran.code, ran.stderr).toBe(0);
    expect(parseNdjson(ran.stdout).at(-1)).toMatchObject({ type: 'workflow_end', stop: { reason: 'goal_achieved' } });
    expect(ran.stderr).toMatch(/details: (npx )?dualloop audit pg-complete --store 'postgres:\/\/[^':]*@127\.0\.0\.1:\d+\/postgres\?schema=cli_[0-9a-f]+'/);
    expect(existsSync(`${dir}/postgres:`)).toBe(false);
    expect(onlyTestFiles(dir)).toEqual([]);

    const runs = await runCli(['runs', '--store', url, '--json'], { cwd: dir });
    expect(runs.code, runs.stderr).toBe(0);
    expect(JSON.parse(runs.stdout)).toMatchObject([{ runId: 'pg-complete', stop: { reason: 'goal_achieved' }, tasksDone: 3 }]);
    const table = await runCli(['runs', '--store', url], { cwd: dir });
    expect(table.stdout).toMatch(/pg-complete\s+expense-report/);

    const audit = await runCli(['audit', 'pg-complete', '--store', url, '--json'], { cwd: dir });
    expect(audit.code, audit.stderr).toBe(0);
    expect(JSON.parse(audit.stdout)).toMatchObject({ runId: 'pg-complete', status: 'finished', workflow: { stop: { reason: 'goal_achieved' } } });
    const missing = await runCli(['audit', 'nope', '--store', url], { cwd: dir });
    expect(missing.code).toBe(64);
    expect(missing.stderr).toMatch(/no run nope in postgres:\/\/127\.0\.0\.1:\d+\/postgres schema cli_/);

    const forked = await runCli(['fork', 'pg-complete', '--at', '2', '--store', url, '--run-id', 'pg-fork'], { cwd: dir });
    expect(forked.code, forked.stderr).toBe(0);
    expect(parseNdjson(forked.stdout).at(-1)).toMatchObject({ type: 'workflow_end', runId: 'pg-fork', stop: { reason: 'goal_achieved' } });
    const lineage = await runCli(['runs', '--store', url], { cwd: dir });
    expect(lineage.stdout).toMatch(/pg-fork .*forked from pg-complete at 2/);

    const viewing = startCli(['view', 'pg-complete', '--store', url], { cwd: dir });
    const page = (await waitForLine(viewing, (line) => line.startsWith('viewer: '))).slice('viewer: '.length);
    const received = await readEvents(`${new URL(page).origin}/api/runs/pg-complete/stream`, (events) => events.some((event) => event.event === 'audit'));
    expect(received[0]).toMatchObject({ event: 'run', data: { name: 'expense-report', bounds: { inner: { maxTurns: expect.any(Number) } } } });
    expect(received.filter((event) => event.event === 'events').flatMap((event) => event.data).at(-1)).toMatchObject({ type: 'workflow_end' });
    viewing.kill('SIGINT');
    const viewed = await viewing.done;
    expect(viewed.code).toBe(0);
    const noRun = await runCli(['view', 'nope', '--store', url], { cwd: dir });
    expect(noRun.code).toBe(64);

    expect(onlyTestFiles(dir)).toEqual([]);
    expectNoSecret([ran.stderr, runs.stderr, table.stdout, audit.stderr, missing.stderr, forked.stderr, viewed.stdout, viewed.stderr, noRun.stderr], password);
  }, 60_000);

  it('a run parked in Postgres, approved from another process, continues with the hint `approve` prints', async () => {
    const { url, password } = storeUrl();
    const manifest = workflow({ tools: { builtin: ['calculator'] }, tasks: ['What is 6 * 7?'], policy: { requireApproval: ['calculator'] } }, [
      { toolCalls: [{ name: 'calculator', args: { expression: '6 * 7' } }] },
      { text: '42' },
    ]);
    const { dir } = workspace();
    const parked = await runCli(['run', manifest, '--store', url, '--run-id', 'pg-parked'], { cwd: dir });
    expect(parked.code, parked.stderr).toBe(3);
    expect(parked.stderr).toContain('dualloop resume pg-parked --approve call_0_0');

    const approved = await runCli(['approve', 'pg-parked', '--allow', '--store', url], { cwd: dir });
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain('approval call_0_0 of run pg-parked: allowed');
    const hint = resumeHint(approved.stdout);
    expect(hint.slice(0, 3)).toEqual(['resume', 'pg-parked', '--store']);
    // The hint carries no password: the driver takes it from PGPASSWORD, as docs/postgres.md says.
    const resumed = await runCli(hint, { cwd: dir, env: { PGPASSWORD: password } });
    expect(resumed.code, resumed.stderr).toBe(0);
    const events = parseNdjson(resumed.stdout);
    expect(events.find((event) => event.type === 'tool_execution_end')?.result).toEqual({ expression: '6 * 7', result: 42 });
    expect(events.at(-1)).toMatchObject({ type: 'workflow_end', stop: { reason: 'goal_achieved' } });

    const finished = await runCli(['resume', 'pg-parked', '--store', url], { cwd: dir });
    expect(finished.code).toBe(64);
    expect(finished.stderr).toContain('cannot resume pg-parked: run pg-parked already finished with goal_achieved');
    expect(onlyTestFiles(dir)).toEqual([]);
    expectNoSecret([parked.stdout, parked.stderr, approved.stdout, approved.stderr, resumed.stderr, finished.stderr], password);
  }, 60_000);

  it('an unreachable server or a malformed URL fails every command without a file and without the password', async () => {
    const { dir } = workspace();
    const manifest = workflow({ tasks: ['a'] }, [{ text: 'done' }]);
    const unreachable = 'postgres://someone:hunter2-secret@127.0.0.1:1/db?schema=x';
    const malformed = 'postgresql://someone:hunter2-secret@127.0.0.1:port/db';
    const commands = [
      ['run', manifest],
      ['resume', 'r1'],
      ['fork', 'r1', '--at', '1'],
      ['view', 'r1'],
      ['runs'],
      ['audit', 'r1'],
      ['cancel', 'r1'],
      ['steer', 'r1', 'hello'],
      ['approve', 'r1', '--allow'],
    ];
    for (const command of commands) {
      const down = await runCli([...command, '--store', unreachable], { cwd: dir });
      expect(down.code, `${command[0]}: ${down.stderr}`).toBe(4);
      expect(down.stderr).toContain('postgres store postgres://127.0.0.1:1/db schema x');
      const bad = await runCli([...command, '--store', malformed], { cwd: dir });
      expect(bad.code, `${command[0]}: ${bad.stderr}`).toBe(64);
      expect(bad.stderr).toContain('--store: not a valid postgres:// URL');
      expectNoSecret([down.stdout, down.stderr, bad.stdout, bad.stderr], 'hunter2-secret');
    }
    expect(onlyTestFiles(dir)).toEqual([]);
  }, 120_000);

  it('a manifest whose store.path is a postgres:// URL is invalid (validate and run exit 64)', async () => {
    const manifest = workflow({ tasks: ['a'], store: { path: 'postgres://someone:hunter2-secret@127.0.0.1/db' } }, [{ text: 'done' }]);
    const { dir } = workspace();
    for (const command of [['validate', manifest], ['run', manifest]]) {
      const result = await runCli(command, { cwd: dir });
      expect(result.code).toBe(64);
      expect(result.stderr).toContain('store.path');
      expect(result.stderr).toContain('give a postgres:// URL as --store');
      expectNoSecret([result.stdout, result.stderr], 'hunter2-secret');
    }
    expect(onlyTestFiles(dir)).toEqual([]);
  });
});
