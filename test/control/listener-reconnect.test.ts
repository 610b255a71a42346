// The Postgres store's LISTEN connection is lost (its backend terminated) while a run waits in a
// tool: the store opens it again, LISTENs again and catches up, so a cancel sent from another
// process still reaches the run. The safety timer is set beyond the test's life: only the
// reconnected listener can deliver the cancel.
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, postgresStore, type KernelEvent, type WorkflowRun } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';
import { runCli } from '../cli/cli-process.js';
import { postgresUrl, sql, useSchemas } from '../support/postgres.js';

const schema = useSchemas('listen');
const NEVER_MS = 2_147_483_647;

const waitTool = defineTool({
  name: 'wait',
  description: 'Waits until cancelled.',
  parameters: z.object({}),
  execute: (_args, context) => new Promise((resolve) => context?.signal?.addEventListener('abort', () => resolve('cancelled'), { once: true })),
});

function eventOf(run: WorkflowRun, match: (event: KernelEvent) => boolean): Promise<KernelEvent> {
  return new Promise((resolve) => {
    void (async () => {
      for await (const event of run) if (match(event)) return resolve(event);
    })();
  });
}

/** The backends LISTENing on the schema's control channel (each store names its listener connection). */
async function listenerPids(name: string): Promise<number[]> {
  const rows = await sql<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name = 'dualloop listener' AND query = $1`, [`LISTEN "dualloop_${name}"`]);
  return rows.map((row) => Number(row.pid));
}

/** Waits (bounded by the test's timeout) until `check` holds. */
async function until<T>(read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the Postgres listener after its connection is lost', () => {
  it('reconnects and re-LISTENs: a cancel from another process still ends the run context_canceled', async () => {
    const name = schema();
    const store = postgresStore({ connectionString: postgresUrl() }, { schema: name, safetyPollMs: NEVER_MS });
    const kernel = createKernel({ model: scriptedModel([{ toolCalls: [{ name: 'wait', args: {}, id: 'call-wait' }] }, { text: 'never reached' }]), tools: [waitTool], store });
    const run = kernel.start(['wait'], { runId: 'listened' });
    await eventOf(run, (event) => event.type === 'tool_execution_start');

    const [lost] = await until(() => listenerPids(name), (pids) => pids.length === 1);
    expect((await sql<{ done: boolean }>('SELECT pg_terminate_backend($1) AS done', [lost]))[0]?.done).toBe(true);

    const url = new URL(postgresUrl());
    url.searchParams.set('schema', name);
    const cancelled = await runCli(['cancel', 'listened', '--store', url.toString(), '--reason', 'after the listener died'], { cwd: tmpdir() });
    expect(cancelled, cancelled.stderr).toMatchObject({ code: 0 });

    const { result } = await collectRun(run);
    expect(result.stop).toMatchObject({ reason: 'context_canceled', detail: 'cancelled from another process: after the listener died' });
    const [again] = await listenerPids(name);
    expect(again).toBeDefined();
    expect(again).not.toBe(lost);
    await store.close();
  }, 60_000);

  it('refuses a safety poll that is not a positive integer of milliseconds', () => {
    expect(() => postgresStore({ connectionString: postgresUrl() }, { safetyPollMs: 0 })).toThrow(/safetyPollMs/);
  });
});
