// The viewer follows a run that another process executes in Postgres: events arrive through
// LISTEN/NOTIFY and only the rows after the last one sent are read (ADR/0186). The API test sets
// the viewer's poll and the store's safety timer beyond the test's life, so the run can only be
// followed through notifications.
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresStore } from 'dualloop';
import { startViewer, type Viewer } from 'dualloop/viewer';
import { startCli, waitForLine } from '../cli/cli-process.js';
import { useWorkspace } from '../cli/workspace.js';
import { postgresUrl, useSchemas } from '../support/postgres.js';
import { slowManifest } from './cli-fixtures.js';
import { readEvents, type ReceivedEvent } from './sse-client.js';

const workspace = useWorkspace();
const schema = useSchemas('follow');
const NEVER_MS = 2_147_483_647;
let closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing) await close();
  closing = [];
});

function storeUrl(name: string): string {
  const url = new URL(postgresUrl());
  url.searchParams.set('schema', name);
  return url.toString();
}

function kernelEventTypes(received: readonly ReceivedEvent[]): string[] {
  return received.filter((event) => event.event === 'events').flatMap((event) => event.data.map((kernelEvent: { type: string }) => kernelEvent.type));
}

/** Follows `runId`'s stream; releases the run's slow tool once the page saw it start; ends at the finished audit. */
async function follow(origin: string, runId: string, release: string): Promise<ReceivedEvent[]> {
  let released = false;
  return readEvents(
    `${origin}/api/runs/${runId}/stream`,
    (events) => {
      if (!released && kernelEventTypes(events).includes('tool_execution_start')) {
        released = true;
        writeFileSync(release, 'go');
      }
      return events.some((event) => event.event === 'audit' && event.data.status === 'finished');
    },
    { timeoutMs: 30_000 },
  );
}

describe('the viewer on a Postgres store', () => {
  it('follows a run another process executes through notifications alone (no poll), each event once', async () => {
    const name = schema();
    const { manifest, release } = slowManifest(workspace());
    const running = startCli(['run', manifest, '--store', storeUrl(name), '--run-id', 'notified'], { cwd: workspace().dir });
    await waitForLine(running, (line) => line.includes('"type":"tool_execution_start"') && line.includes('wait_for_file'));

    const store = postgresStore({ connectionString: postgresUrl() }, { schema: name, safetyPollMs: NEVER_MS });
    const viewer: Viewer = await startViewer({ store, pollMs: NEVER_MS });
    closing.push(() => viewer.close(), () => store.close());
    const received = await follow(`http://${viewer.host}:${viewer.port}`, 'notified', release);

    expect((await running.done).code).toBe(0);
    const types = kernelEventTypes(received);
    expect(types.filter((type) => type === 'task_end')).toHaveLength(2);
    expect(types.at(-1)).toBe('workflow_end');
    const seqs = received.filter((event) => event.event === 'events').flatMap((event) => event.data.map((kernelEvent: { seq: number }) => kernelEvent.seq));
    expect(seqs).toEqual((await store.readEvents('notified')).map((event) => event.seq));
    expect(received.at(-1)).toMatchObject({ event: 'audit', data: { status: 'finished', workflow: { stop: { reason: 'goal_achieved' } } } });
  }, 60_000);

  it('dualloop view --store postgres://… follows a run that `dualloop run` executes in another process', async () => {
    const url = storeUrl(schema());
    const { manifest, release } = slowManifest(workspace());
    const { dir } = workspace();
    const running = startCli(['run', manifest, '--store', url, '--run-id', 'elsewhere'], { cwd: dir });
    await waitForLine(running, (line) => line.includes('"type":"tool_execution_start"') && line.includes('wait_for_file'));
    const viewing = startCli(['view', 'elsewhere', '--store', url], { cwd: dir });
    closing.push(async () => {
      viewing.kill('SIGINT');
      await viewing.done;
    });
    const page = (await waitForLine(viewing, (line) => line.startsWith('viewer: '))).slice('viewer: '.length);
    const received = await follow(new URL(page).origin, 'elsewhere', release);
    expect((await running.done).code).toBe(0);
    const types = kernelEventTypes(received);
    expect(types.filter((type) => type === 'task_end')).toHaveLength(2);
    expect(types.at(-1)).toBe('workflow_end');
    expect(received[0]).toMatchObject({ event: 'run', data: { name: 'slow-answer', bounds: { inner: { maxTurns: 5 } } } });
  }, 60_000);
});
