// Postgres restarted mid-run (ADR/0187), on a server of the test's own (never the suite's shared
// one): the run is waiting in a tool when the server stops; the tool finishes while it is down.
// Back within `reconnectMs`, the store reconnects and the run finishes as if nothing happened;
// down for longer, the run ends `error` naming the store, and a resume finishes it. Either way
// nothing the store had acknowledged is lost.
import { afterEach, describe, expect, it } from 'vitest';
import { createKernel, postgresStore, type KernelEvent, type PostgresStore, type WorkflowRun } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';
import { startOwnPostgres, type OwnPostgres } from '../support/postgres-server.js';
import { GATE_SCRIPT, gateTool } from '../support/kernel-fixtures.js';

let server: OwnPostgres | undefined;
const stores: PostgresStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close().catch(() => undefined);
  await server?.stop();
  server = undefined;
});

/** Task 1 calls `gate` (which waits for the test), then answers; task 2 answers. */
function gatedKernel(store: PostgresStore, leaseMs?: number) {
  const { tool, executions, open } = gateTool();
  return { kernel: createKernel({ model: scriptedModel(GATE_SCRIPT), tools: [tool], store, ...(leaseMs === undefined ? {} : { leaseMs }) }), executions, open };
}

function eventOf(run: WorkflowRun, type: KernelEvent['type']): Promise<void> {
  return new Promise((resolve) => {
    void (async () => {
      for await (const event of run) if (event.type === type) return resolve();
    })();
  });
}

/** Resumes as soon as the lease the ended run could not release has expired (on the server's clock). */
async function resumeOnceFree(kernel: ReturnType<typeof createKernel>, runId: string): Promise<WorkflowRun> {
  for (;;) {
    try {
      return await kernel.resume(runId);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'run_held') throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** What the store acknowledged while the run waited in its tool: the events and checkpoints committed by then. */
async function acknowledged(store: PostgresStore, runId: string) {
  return { events: await store.readEvents(runId), checkpoints: await store.listCheckpoints(runId) };
}

describe('Postgres restarted mid-run', () => {
  it('back within reconnectMs: the store reconnects, the run finishes goal_achieved, nothing acknowledged is lost, the tool ran once', async () => {
    server = await startOwnPostgres();
    const store = postgresStore({ connectionString: server.url }, { schema: 'restart', reconnectMs: 60_000 });
    stores.push(store);
    const { kernel, executions, open } = gatedKernel(store);
    const run = kernel.start(['use the gate', 'report'], { runId: 'restarted' });
    await eventOf(run, 'tool_execution_start');
    const before = await acknowledged(store, 'restarted');
    expect(before.events.at(-1)?.type).toBe('tool_execution_start');

    await server.halt();
    open(); // the tool's result is written while the server is down: the store waits for it
    await server.restart();

    const { result } = await collectRun(run);
    expect(result.stop.reason).toBe('goal_achieved');
    expect(result.tasks.map((task) => task.stop.reason)).toEqual(['planner_stopped', 'planner_stopped']);
    expect(executions).toEqual(['first']);
    const after = await acknowledged(store, 'restarted');
    expect(after.events.slice(0, before.events.length)).toEqual(before.events);
    expect(after.events.map((event) => event.seq)).toEqual(after.events.map((_, index) => index + 1));
    expect(after.checkpoints.slice(0, before.checkpoints.length)).toEqual(before.checkpoints);
    expect(await store.getToolResult('restarted', 'call-gate')).toMatchObject({ toolCallId: 'call-gate', content: 'passed first' });
    expect(await store.loadResult('restarted')).toEqual(result);
  }, 90_000);

  it('down longer than reconnectMs: the run ends error naming the store (no password); resumed after the restart, it finishes from what was acknowledged', async () => {
    server = await startOwnPostgres();
    const store = postgresStore({ connectionString: server.url }, { schema: 'outage', reconnectMs: 200 });
    stores.push(store);
    // The lease cannot be released while the server is down: a short one lets this process resume soon.
    const { kernel, executions, open } = gatedKernel(store, 1_000);
    const run = kernel.start(['use the gate', 'report'], { runId: 'outage' });
    await eventOf(run, 'tool_execution_start');
    const before = await acknowledged(store, 'outage');

    await server.halt();
    open();
    const { result } = await collectRun(run);
    expect(result.stop.reason).toBe('error');
    expect(result.stop.detail).toContain(`postgres store postgres://127.0.0.1:${server.port}/postgres schema outage`);
    expect(result.stop.detail).not.toContain(new URL(server.url).password);
    await server.restart();

    const later = postgresStore({ connectionString: server.url }, { schema: 'outage' });
    stores.push(later);
    const resumed = gatedKernel(later);
    resumed.open();
    const { result: finished } = await collectRun(await resumeOnceFree(resumed.kernel, 'outage'));
    expect(finished.stop.reason).toBe('goal_achieved');
    // The first result was never acknowledged: the tool runs again on resume, once.
    expect([...executions, ...resumed.executions]).toEqual(['first', 'first']);
    const after = await acknowledged(later, 'outage');
    expect(after.events.slice(0, before.events.length)).toEqual(before.events);
    expect(after.checkpoints.slice(0, before.checkpoints.length)).toEqual(before.checkpoints);
    expect(await later.loadResult('outage')).toEqual(finished);
  }, 90_000);
});
