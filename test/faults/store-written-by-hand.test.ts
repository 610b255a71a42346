import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, ErrorCode, isDualloopError, memoryStore, sqliteStore, type CheckpointEntry, type CheckpointStore, type KernelEvent } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { runCli } from '../cli/cli-process.js';
import { useWorkspace } from '../cli/workspace.js';

/**
 * A store a user writes by hand — a class whose methods live on its prototype, delegating to a
 * real store — with one method made to throw a plain Error. A store failure is data (docs/errors.md):
 * the run ends `error`, explained by exactly one `error` event with a code from `ErrorCode`, and
 * `start()` throws only for a duplicate run id. Before the run is recorded and leased, nothing of it
 * can be stored: the event reaches the live listeners only.
 */

const workspace = useWorkspace();

type Method = 'createRun' | 'acquireLease' | 'saveCheckpoint';

class HandWrittenStore implements CheckpointStore {
  readonly kind = 'hand-written';
  constructor(
    private readonly inner: CheckpointStore,
    private readonly fails: (method: Method, argument: unknown) => string | undefined,
  ) {}
  private check(method: Method, argument: unknown): void {
    const cause = this.fails(method, argument);
    if (cause !== undefined) throw new Error(cause);
  }
  createRun(...args: Parameters<CheckpointStore['createRun']>) {
    this.check('createRun', args[0]);
    return this.inner.createRun(...args);
  }
  getRun(...args: Parameters<CheckpointStore['getRun']>) {
    return this.inner.getRun(...args);
  }
  saveCheckpoint(...args: Parameters<CheckpointStore['saveCheckpoint']>) {
    this.check('saveCheckpoint', args[0]);
    return this.inner.saveCheckpoint(...args);
  }
  loadCheckpoint(...args: Parameters<CheckpointStore['loadCheckpoint']>) {
    return this.inner.loadCheckpoint(...args);
  }
  listCheckpoints(...args: Parameters<CheckpointStore['listCheckpoints']>) {
    return this.inner.listCheckpoints(...args);
  }
  recordToolResult(...args: Parameters<CheckpointStore['recordToolResult']>) {
    return this.inner.recordToolResult(...args);
  }
  getToolResult(...args: Parameters<CheckpointStore['getToolResult']>) {
    return this.inner.getToolResult(...args);
  }
  appendEvent(...args: Parameters<CheckpointStore['appendEvent']>) {
    return this.inner.appendEvent(...args);
  }
  readEvents(...args: Parameters<CheckpointStore['readEvents']>) {
    return this.inner.readEvents(...args);
  }
  saveResult(...args: Parameters<CheckpointStore['saveResult']>) {
    return this.inner.saveResult(...args);
  }
  loadResult(...args: Parameters<CheckpointStore['loadResult']>) {
    return this.inner.loadResult(...args);
  }
  listRuns(...args: Parameters<CheckpointStore['listRuns']>) {
    return this.inner.listRuns(...args);
  }
  acquireLease(...args: Parameters<CheckpointStore['acquireLease']>) {
    this.check('acquireLease', args[0]);
    return this.inner.acquireLease(...args);
  }
  releaseLease(...args: Parameters<CheckpointStore['releaseLease']>) {
    return this.inner.releaseLease(...args);
  }
  audit(...args: Parameters<CheckpointStore['audit']>) {
    return this.inner.audit(...args);
  }
}

const step = defineTool({ name: 'step', description: 'One step.', parameters: z.object({}), execute: () => 'stepped' });
const model = () => scriptedModel(({ index }) => (index % 2 === 0 ? { toolCalls: [{ name: 'step', args: {} }] } : { text: 'done' }));

async function runOn(store: CheckpointStore, runId?: string) {
  const run = createKernel({ model: model(), tools: [step], store }).start(['first task', 'second task'], runId === undefined ? {} : { runId });
  const events: KernelEvent[] = [];
  for await (const event of run) events.push(event);
  return { result: await run.result, events };
}

function onlyError(events: readonly KernelEvent[]) {
  const errors = events.filter((event): event is Extract<KernelEvent, { type: 'error' }> => event.type === 'error');
  expect(errors).toHaveLength(1);
  const end = events.find((event) => event.type === 'workflow_end')!;
  expect(errors[0]!.seq).toBeLessThan(end.seq);
  expect(ErrorCode.options).toContain(errors[0]!.code);
  return errors[0]!;
}

describe('a store written by hand, failing', () => {
  it('task checkpoint: one checkpoint error event, the run ends error, dualloop audit prints it', async () => {
    const { dir } = workspace();
    const path = join(dir, 'runs.db');
    const inner = sqliteStore({ path });
    const store = new HandWrittenStore(inner, (method, entry) => (method === 'saveCheckpoint' && (entry as CheckpointEntry).kind === 'task' ? 'disk full' : undefined));
    const { result, events } = await runOn(store);
    inner.close?.();

    const error = onlyError(events);
    expect(error).toMatchObject({ scope: 'checkpoint', code: 'checkpoint_failed' });
    expect(error.message).toContain('disk full');
    expect(result.stop).toMatchObject({ reason: 'error', code: 'checkpoint_failed' });
    const audit = await runCli(['audit', result.runId, '--store', path], { cwd: dir });
    expect(audit.stdout).toMatch(/^errors\n {2}checkpoint\s+.*disk full/m);
  });

  it.each([
    { method: 'createRun' as const, cause: 'cannot create: disk full' },
    { method: 'acquireLease' as const, cause: 'lease table locked' },
  ])('$method: start() does not throw; one store error event (store_call_failed) ends the run error before any task', async ({ method, cause }) => {
    const { dir } = workspace();
    const inner = sqliteStore({ path: join(dir, 'runs.db') });
    const { result, events } = await runOn(new HandWrittenStore(inner, (called) => (called === method ? cause : undefined)));
    inner.close?.();

    const error = onlyError(events);
    expect(error).toMatchObject({ scope: 'store', code: 'store_call_failed' });
    expect(error.message).toContain(cause);
    expect(result.stop).toMatchObject({ reason: 'error', code: 'store_call_failed' });
    expect(result.stop.detail).toContain(cause);
    expect(events.filter((event) => event.type === 'task_start')).toEqual([]);
  });

  it('a duplicate run id still throws RunError run_exists from start()', async () => {
    const { dir } = workspace();
    const inner = sqliteStore({ path: join(dir, 'runs.db') });
    const store = new HandWrittenStore(inner, () => undefined);
    await runOn(store, 'twice');
    let thrown: unknown;
    try {
      await runOn(store, 'twice');
    } catch (error) {
      thrown = error;
    }
    inner.close?.();
    expect(isDualloopError(thrown, 'run_exists')).toBe(true);
  });
});

describe('resume and fork with a store that throws a plain Error', () => {
  /** Which calls each path needs: a call it does not make cannot fail it. */
  const NEEDED = {
    resume: ['getRun', 'loadCheckpoint', 'acquireLease'],
    fork: ['getRun', 'loadCheckpoint', 'listCheckpoints', 'acquireLease', 'createRun'],
  } as const;
  it.each(['getRun', 'loadCheckpoint', 'listCheckpoints', 'acquireLease', 'createRun'] as const)('%s: resume() and fork() reject with StoreError store_failed naming the cause', async (method) => {
    const inner = memoryStore();
    const failed = await createKernel({ model: scriptedModel([{ text: 'one' }, { error: 'down' }]), store: inner }).start(['one', 'two'], { runId: 'source' }).result;
    expect(failed.stop.reason).toBe('error');
    const broken: CheckpointStore = {
      ...inner,
      [method]: () => {
        throw new Error(`${method} broke`);
      },
    };
    const kernel = createKernel({ model: scriptedModel(() => ({ text: 'two' })), store: broken });
    const attempts = { resume: () => kernel.resume('source'), fork: () => kernel.fork('source', { at: { task: 2 } }) };
    for (const [path, attempt] of Object.entries(attempts) as [keyof typeof NEEDED, () => Promise<{ result: Promise<{ stop: { reason: string } }> }>][]) {
      const outcome = await attempt().then((run) => run.result, (error: unknown) => error);
      if (!(NEEDED[path] as readonly string[]).includes(method)) {
        expect(outcome, `${path} does not call ${method}`).toMatchObject({ stop: { reason: 'goal_achieved' } });
        continue;
      }
      expect(isDualloopError(outcome, 'store_failed'), `${path}: ${String(outcome)}`).toBe(true);
      expect((outcome as Error).message).toContain(`${method} broke`);
      expect((outcome as Error).cause).toBeInstanceOf(Error);
    }
  });
});
