import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseNdjson, runCli, startCli, waitForLine } from '../cli/cli-process.js';
import { useWorkspace } from '../cli/workspace.js';
import { activeStates, foreignRequests, openBrowser, type TestBrowser } from './browser.js';
import { slowManifest, waitForStderr } from './cli-fixtures.js';
import { readEvents } from './sse-client.js';

const workspace = useWorkspace();
let browser: TestBrowser | undefined;
afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

/** The page `dualloop view` prints on stdout. */
async function viewerUrl(child: ReturnType<typeof startCli>): Promise<string> {
  const line = await waitForLine(child, (text) => text.startsWith('viewer: '));
  return line.slice('viewer: '.length);
}

describe('dualloop run --view', () => {
  it('serves the viewer on loopback: live states and gauges while a tool is slow, the stop tree after, replay, no request elsewhere', async () => {
    const { manifest, release } = slowManifest(workspace());
    const child = startCli(['run', manifest, '--store', 'runs.db', '--run-id', 'viewed', '--view'], { cwd: workspace().dir });
    const [, url] = await waitForStderr(child, /viewer: (http:\/\/127\.0\.0\.1:\d+\/\?run=viewed)\n/);
    const origin = new URL(url!).origin;
    browser = await openBrowser();
    const { page } = browser;
    await page.goto(url!);

    await page.locator('[data-machine="turn"] [data-state="ACT"][data-active="true"]').waitFor();
    expect(await activeStates(page, 'workflow')).toEqual(['TASK_EXECUTE']);
    expect(await activeStates(page, 'turn')).toEqual(['ACT']);
    expect(await page.locator('[data-gauge="turns"] .gauge-value').textContent()).toBe('2 / 5');
    expect(await page.locator('[data-gauge="toolCalls"] .gauge-value').textContent()).toBe('1 / 8');
    // Outer bounds come from the manifest: the token budget and the default session deadline.
    expect(await page.locator('[data-gauge="runTokens"] .gauge-value').textContent()).toBe('295 / 10,000');
    expect(await page.locator('[data-gauge="sessionRuntime"]').getAttribute('data-limit')).toBe('3600000');
    await browser.screenshot('cli-run-view-paused');

    writeFileSync(release, 'go');
    await waitForStderr(child, /still serving the pages above/);
    await page.locator('[data-task-id="report"][data-reason="planner_stopped"]').waitFor();
    expect(await page.locator('[data-task-id="compute"]').getAttribute('data-reason')).toBe('planner_stopped');
    expect(await page.locator('.workflow-stop').getAttribute('data-reason')).toBe('goal_achieved');
    await browser.screenshot('cli-run-view-finished');

    // Replay: one event back from the end leaves DONE; the start is INIT.
    await page.getByRole('button', { name: 'one event back' }).click();
    expect(await activeStates(page, 'workflow')).not.toEqual(['DONE']);
    await page.getByRole('button', { name: 'to the start' }).click();
    await page.locator('[data-machine="workflow"] [data-state="INIT"][data-active="true"]').waitFor();
    await browser.screenshot('cli-run-view-replay-start');
    expect(foreignRequests(browser.requests, origin)).toEqual([]);
    expect(browser.errors).toEqual([]);

    child.kill('SIGINT');
    const result = await child.done;
    expect(result.code).toBe(0);
    expect(parseNdjson(result.stdout).at(-1)).toMatchObject({ type: 'workflow_end', stop: { reason: 'goal_achieved' } });
  });
});

describe('dualloop view', () => {
  it('replays a finished run from the store, with the bounds of the manifest it ran with', async () => {
    const { manifest, release } = slowManifest(workspace());
    writeFileSync(release, 'already');
    const { dir } = workspace();
    const ran = await runCli(['run', manifest, '--store', 'runs.db', '--run-id', 'finished'], { cwd: dir });
    expect(ran.code, ran.stderr).toBe(0);

    const child = startCli(['view', 'finished', '--store', 'runs.db'], { cwd: dir });
    const url = await viewerUrl(child);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?run=finished$/);
    const origin = new URL(url).origin;
    const received = await readEvents(`${origin}/api/runs/finished/stream`, (events) => events.some((event) => event.event === 'audit'));
    expect(received[0]).toMatchObject({ event: 'run', data: { name: 'slow-answer', bounds: { inner: { maxTurns: 5 }, outer: { maxTokens: 10_000 } } } });
    expect(received.at(-1)).toMatchObject({ event: 'audit', data: { status: 'finished', tasks: [{ taskId: 'compute' }, { taskId: 'report' }] } });
    const runs = (await (await fetch(`${origin}/api/runs`)).json()) as { runs: { runId: string }[] };
    expect(runs.runs.map((run) => run.runId)).toEqual(['finished']);

    child.kill('SIGINT');
    expect((await child.done).code).toBe(0);
  });

  it('follows a run that another process is running, from the shared SQLite file', async () => {
    const { manifest, release } = slowManifest(workspace());
    const { dir } = workspace();
    const running = startCli(['run', manifest, '--store', 'runs.db', '--run-id', 'elsewhere'], { cwd: dir });
    await waitForLine(running, (line) => line.includes('"type":"tool_execution_start"') && line.includes('wait_for_file'));
    const viewing = startCli(['view', 'elsewhere', '--store', 'runs.db'], { cwd: dir });
    const url = await viewerUrl(viewing);
    let released = false;
    const received = await readEvents(`${new URL(url).origin}/api/runs/elsewhere/stream`, (events) => {
      const types = events.filter((event) => event.event === 'events').flatMap((event) => event.data.map((kernelEvent: { type: string }) => kernelEvent.type));
      if (!released && types.includes('tool_execution_start')) {
        released = true;
        writeFileSync(release, 'go');
      }
      return events.some((event) => event.event === 'audit' && event.data.status === 'finished');
    });
    expect((await running.done).code).toBe(0);
    const types = received.filter((event) => event.event === 'events').flatMap((event) => event.data.map((kernelEvent: { type: string }) => kernelEvent.type));
    expect(types.filter((type) => type === 'task_end')).toHaveLength(2);
    expect(types.at(-1)).toBe('workflow_end');
    viewing.kill('SIGINT');
    expect((await viewing.done).code).toBe(0);
  });

  it('says so when the run or the store does not exist (exit 64)', async () => {
    const { dir } = workspace();
    const noStore = await runCli(['view', '--store', 'missing.db'], { cwd: dir });
    expect(noStore.code).toBe(64);
    expect(noStore.stderr).toContain('no store at missing.db');
    const { manifest, release } = slowManifest(workspace());
    writeFileSync(release, 'already');
    expect((await runCli(['run', manifest, '--store', 'runs.db'], { cwd: dir })).code).toBe(0);
    const noRun = await runCli(['view', 'nope', '--store', 'runs.db'], { cwd: dir });
    expect(noRun.code).toBe(64);
    expect(noRun.stderr).toContain('no run nope in runs.db');
    const badPort = await runCli(['view', '--store', 'runs.db', '--port', '70000'], { cwd: dir });
    expect(badPort.code).toBe(64);
  });

  it('fails before the run starts when the viewer’s port is taken (exit 4)', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', () => resolve()));
    try {
      const port = String((taken.address() as AddressInfo).port);
      const { manifest } = slowManifest(workspace());
      const result = await runCli(['run', manifest, '--store', 'runs.db', '--view', '--port', port], { cwd: workspace().dir });
      expect(result.code).toBe(4);
      expect(result.stderr).toContain(`cannot listen on 127.0.0.1:${port}: the port is in use`);
      expect(result.stdout).toBe('');
      const runs = await runCli(['runs', '--store', 'runs.db', '--json'], { cwd: workspace().dir });
      expect(JSON.parse(runs.stdout)).toEqual([]);
    } finally {
      taken.close();
    }
  });
});
