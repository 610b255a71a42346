import { PgBoss } from 'pg-boss';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startCli } from '../cli/cli-process.js';
import { useWorkspace } from '../cli/workspace.js';
import { openStore, storedResult, storeUrl, usePlaces } from './worker-support.js';

/*
 * `dualloop submit` and `dualloop worker` as real processes (issue 19): exit codes, NDJSON,
 * SIGTERM drain, and an approval from `dualloop approve` continuing a parked run on a worker.
 */

const place = usePlaces();
const workspace = useWorkspace();
const workers: ReturnType<typeof startCli>[] = [];
afterEach(async () => {
  for (const worker of workers.splice(0)) {
    if (worker.exitCode === null) worker.kill('SIGKILL');
    await worker.done;
  }
});

/** A manifest `deploys.yaml`: one task that calls `calculator` (parked for approval when asked), then answers. */
function deploysManifest(requireApproval: boolean): string {
  const { write } = workspace();
  write('deploys.cassette.yaml', [{ toolCalls: [{ name: 'calculator', args: { expression: '6 * 7' } }], delayMs: 100 }, { text: 'It is 42.', delayMs: 100 }]);
  return write('deploys.yaml', {
    name: 'deploys',
    model: { provider: 'scripted', script: './deploys.cassette.yaml' },
    tools: { builtin: ['calculator'] },
    tasks: ['compute'],
    ...(requireApproval ? { policy: { requireApproval: ['calculator'] } } : {}),
  });
}

async function startWorker(manifest: string, store: string): Promise<ReturnType<typeof startCli>> {
  const worker = startCli(['worker', manifest, '--store', store, '--concurrency', '2', '--json'], { cwd: workspace().dir });
  workers.push(worker);
  await new Promise<void>((resolve, reject) => {
    let stderr = '';
    worker.stderr.on('data', (chunk: string) => {
      stderr += chunk;
      if (stderr.includes('takes runs of')) resolve();
    });
    void worker.done.then((result) => reject(new Error(`the worker exited (${result.code}): ${result.stderr}`)));
  });
  return worker;
}

describe('dualloop submit / worker', () => {
  it('submit --wait --json follows the run a worker executes and exits 0; SIGTERM makes the worker drain and exit 0', async () => {
    const where = place();
    const manifest = deploysManifest(false);
    const worker = await startWorker(manifest, storeUrl(where));
    const submitted = await runCli(['submit', manifest, '--store', storeUrl(where), '--wait', '--json'], { cwd: workspace().dir });
    expect(submitted.code, submitted.stderr).toBe(0);
    const lines = submitted.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; runId?: string; stop?: { reason: string } });
    expect(lines[0]).toMatchObject({ type: 'submitted', workflow: 'deploys', queued: true });
    expect(lines.at(-1)).toMatchObject({ type: 'workflow_end', stop: { reason: 'goal_achieved' } });
    expect(submitted.stderr).toContain('stop: goal_achieved');

    worker.kill('SIGTERM');
    const ended = await worker.done;
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stdout).toContain(`"runId":"${lines[0]!.runId}"`);
    expect(ended.stdout).toContain('"outcome":"ended"');
  }, 60_000);

  it('a parked run exits 3 on submit --wait; dualloop approve queues its next slice and a worker finishes it', async () => {
    const where = place();
    const manifest = deploysManifest(true);
    await startWorker(manifest, storeUrl(where));
    const parked = await runCli(['submit', manifest, '--store', storeUrl(where), '--run-id', 'parked-run', '--wait'], { cwd: workspace().dir });
    expect(parked.code, parked.stderr).toBe(3);
    expect(parked.stderr).toContain('dualloop approve parked-run');

    const approved = await runCli(['approve', 'parked-run', '--allow', '--store', storeUrl(where)], { cwd: workspace().dir });
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain('a worker of deploys continues the run');
    const store = openStore(where);
    const result = await storedResult(store, 'parked-run', (stored) => stored.stop.reason !== 'awaiting_approval');
    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks[0]?.output).toBe('It is 42.');
    await store.close();
  }, 60_000);

  it('approve queues the next slice from the run recorded at submission, after pg-boss deleted all its jobs (retention)', async () => {
    const where = place();
    const manifest = deploysManifest(true);
    const first = await startWorker(manifest, storeUrl(where));
    const parked = await runCli(['submit', manifest, '--store', storeUrl(where), '--run-id', 'parked-long', '--priority', '7', '--wait'], { cwd: workspace().dir });
    expect(parked.code, parked.stderr).toBe(3);
    first.kill('SIGTERM');
    expect((await first.done).code).toBe(0);

    // What pg-boss does to a completed job after its retention (7 days by default): it is gone.
    const boss = new PgBoss({ connectionString: where.connectionString, schema: where.queueSchema, supervise: false, schedule: false });
    boss.on('error', () => undefined);
    await boss.start();
    try {
      const jobs = await boss.findJobs('dualloop.deploys', { key: 'parked-long' });
      expect(jobs.length).toBeGreaterThan(0);
      await boss.deleteJob('dualloop.deploys', jobs.map((job) => job.id));
      expect(await boss.findJobs('dualloop.deploys', { key: 'parked-long' })).toEqual([]);

      const approved = await runCli(['approve', 'parked-long', '--allow', '--store', storeUrl(where)], { cwd: workspace().dir });
      expect(approved.code, approved.stderr).toBe(0);
      expect(approved.stdout).toContain('a worker of deploys continues the run');
      // Queued on the workflow's queue at the priority given at submission.
      expect(await boss.findJobs('dualloop.deploys', { key: 'parked-long' })).toEqual([expect.objectContaining({ state: 'created', priority: 7, data: { workflow: 'deploys', runId: 'parked-long' } })]);
    } finally {
      await boss.stop({ graceful: false });
    }

    await startWorker(manifest, storeUrl(where));
    const store = openStore(where);
    const result = await storedResult(store, 'parked-long', (stored) => stored.stop.reason !== 'awaiting_approval');
    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks[0]?.output).toBe('It is 42.');
    await store.close();
  }, 90_000);

  it('a submitted run is known to `dualloop resume` in any process: no --manifest needed', async () => {
    const where = place();
    const manifest = deploysManifest(true);
    const worker = await startWorker(manifest, storeUrl(where));
    const parked = await runCli(['submit', manifest, '--store', storeUrl(where), '--run-id', 'resumed-here', '--wait'], { cwd: workspace().dir });
    expect(parked.code, parked.stderr).toBe(3);
    worker.kill('SIGTERM');
    expect((await worker.done).code).toBe(0);

    const resumed = await runCli(['resume', 'resumed-here', '--approve', 'call_0_0', '--store', storeUrl(where)], { cwd: workspace().dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    const store = openStore(where);
    expect(await store.loadResult('resumed-here')).toMatchObject({ stop: { reason: 'goal_achieved' }, tasks: [{ output: 'It is 42.' }] });
    await store.close();
  }, 60_000);

  it('submit and worker without a postgres:// store exit 64 naming why', async () => {
    const manifest = deploysManifest(false);
    for (const command of ['submit', 'worker']) {
      const result = await runCli([command, manifest, '--store', 'runs.db'], { cwd: workspace().dir });
      expect(result.code).toBe(64);
      expect(result.stderr).toContain(`${command} needs --store postgres://`);
    }
  });
});
