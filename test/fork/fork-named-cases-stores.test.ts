import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, memoryStore, postgresStore, sqliteStore, type CheckpointStore, type PolicyGate, type TaskInput } from 'dualloop';
import { manualClock, scriptedModel, type ScriptStep } from 'dualloop/testing';
import { postgresUrl, useSchemas } from '../support/postgres.js';
import { useTempDir } from '../store/temp-dir.js';
import { heldTool, noteTool, sideFile } from './fork-helpers.js';

/*
 * Issue 21's named cases, on every store, with one workflow: task 1 notes twice then answers,
 * task 2 notes, deploys (needs approval) then answers, task 3 notes three times then answers.
 * Each store is opened twice on the same data where it can be (SQLite file, Postgres schema), as
 * two processes would: the run on one, the fork on the other.
 */

const noting = (text: string, id: string): ScriptStep => ({ toolCalls: [{ name: 'note', args: { text }, id }], usage: { inputTokens: 10, outputTokens: 2 } });
const deploying = (id: string): ScriptStep => ({ toolCalls: [{ name: 'deploy', args: { target: 'prod' }, id }], usage: { inputTokens: 10, outputTokens: 2 } });
const answering = (text: string): ScriptStep => ({ text, usage: { inputTokens: 10, outputTokens: 2 } });
/** 10 model calls: task 1 = 0..2, task 2 = 3..5, task 3 = 6..9. */
const script = (prefix: string): ScriptStep[] => [
  noting(`${prefix}0`, `${prefix}-0`), noting(`${prefix}1`, `${prefix}-1`), answering(`${prefix} one`),
  noting(`${prefix}3`, `${prefix}-3`), deploying(`${prefix}-deploy`), answering(`${prefix} two`),
  noting(`${prefix}6`, `${prefix}-6`), noting(`${prefix}7`, `${prefix}-7`), noting(`${prefix}8`, `${prefix}-8`), answering(`${prefix} three`),
];
const TASKS: TaskInput[] = ['gather', 'ship', 'report'];
const approvalGate: PolicyGate = { checkToolCall: (request) => (request.name === 'deploy' ? { decision: 'require_approval', reason: 'deploys need a human' } : { decision: 'allow' }) };

function deployTool(file: string) {
  return defineTool({ name: 'deploy', description: 'deploys', parameters: z.object({ target: z.string() }), execute: ({ target }) => {
    appendFileSync(file, `deploy ${target}\n`);
    return `deployed to ${target}`;
  } });
}

const schema = useSchemas('fork_cases');
const opened: CheckpointStore[] = [];
afterAll(async () => {
  for (const store of opened) await (store as { close?: () => unknown }).close?.();
});
function track<T extends CheckpointStore>(store: T): T {
  opened.push(store);
  return store;
}

/** Two handles on the same data: `a` for the source, `b` for the forks. */
type Pair = (directory: string) => { a: CheckpointStore; b: CheckpointStore };
const STORES: readonly (readonly [string, Pair])[] = [
  ['memoryStore', () => {
    const store = track(memoryStore());
    return { a: store, b: store };
  }],
  ['sqliteStore', (directory) => ({ a: track(sqliteStore({ path: join(directory, 'runs.db') })), b: track(sqliteStore({ path: join(directory, 'runs.db') })) })],
  ['postgresStore', () => {
    const name = schema();
    return { a: track(postgresStore({ connectionString: postgresUrl() }, { schema: name, maxConnections: 2 })), b: track(postgresStore({ connectionString: postgresUrl() }, { schema: name, maxConnections: 2 })) };
  }],
];

describe.each(STORES)('fork named cases on %s', (_name, pair) => {
  const directory = useTempDir('dualloop-fork-cases-');

  it('a fork before a parked approval asks again, on a parked and on an approved source; one after it does not', async () => {
    const { a, b } = pair(directory());
    const file = join(directory(), 'side.txt');
    const tools = [noteTool(file), deployTool(file)];
    const source = createKernel({ model: scriptedModel(script('a')), tools, store: a, policy: approvalGate, clock: manualClock() });
    const parked = await source.start(TASKS, { runId: 'source' }).result;
    expect(parked.stop.reason).toBe('awaiting_approval');

    // Parked source: before the parked turn, and before its task.
    for (const [at, callsBefore] of [[{ task: 2, turn: 2 }, 4], [{ task: 2 }, 3]] as const) {
      const model = scriptedModel(script('a'));
      const fork = await (await createKernel({ model, tools, store: b, policy: approvalGate, clock: manualClock() }).fork('source', { at })).result;
      expect(fork.stop.reason).toBe('awaiting_approval');
      expect(fork.stop.detail).toContain('a-deploy');
      expect(model.calls[0]?.index).toBe(callsBefore);
    }
    // Only the fork at the task point ran task 2's first turn again (fresh, from the point on).
    expect(sideFile(file)).toEqual(['a0', 'a1', 'a3', 'a3']);

    // Approved source: it deploys once and finishes; a fork before the deploy turn asks again.
    expect((await (await source.resume('source', { approvals: { 'a-deploy': 'approve' } })).result).stop.reason).toBe('goal_achieved');
    expect(sideFile(file)).toEqual(['a0', 'a1', 'a3', 'a3', 'deploy prod', 'a6', 'a7', 'a8']);
    const again = await (await createKernel({ model: scriptedModel(script('a')), tools, store: b, policy: approvalGate, clock: manualClock() }).fork('source', { at: { task: 2, turn: 2 }, runId: 'again' })).result;
    expect(again.stop.reason).toBe('awaiting_approval');
    // After the deploy turn the approval is in the record: nothing is asked, nothing deploys again.
    const after = await (await createKernel({ model: scriptedModel(script('c')), tools, store: b, policy: approvalGate, clock: manualClock() }).fork('source', { at: { task: 2, turn: 3 } })).result;
    expect(after.stop.reason).toBe('goal_achieved');
    expect(after.tasks.map((task) => task.output)).toEqual(['a one', 'c two', 'c three']);
    expect(sideFile(file)).toEqual(['a0', 'a1', 'a3', 'a3', 'deploy prod', 'a6', 'a7', 'a8', 'c6', 'c7', 'c8']);
    // The parked fork, approved, goes on like any run.
    const approved = await (await createKernel({ model: scriptedModel(script('d')), tools, store: b, policy: approvalGate, clock: manualClock() }).resume('again', { approvals: { 'a-deploy': 'approve' } })).result;
    expect(approved.stop.reason).toBe('goal_achieved');
    expect(approved.tasks.map((task) => task.output)).toEqual(['a one', 'd two', 'd three']);
  });

  it('an edited user message, a lower maxTurns, a fork of a fork, and points that do not exist', async () => {
    const { a, b } = pair(directory());
    const file = join(directory(), 'side.txt');
    const tools = [noteTool(file), deployTool(file)];
    const allow: PolicyGate = { checkToolCall: () => ({ decision: 'allow' }) };
    await createKernel({ model: scriptedModel(script('a')), tools, store: a, policy: allow }).start(TASKS, { runId: 'source' }).result;

    // Edited user message at a turn point: the next model call ends with it.
    const edited = scriptedModel(script('e'));
    const withMessage = await (await createKernel({ model: edited, tools, store: b, policy: allow }).fork('source', { at: { task: 3, turn: 2 }, edit: { message: 'Only one more note, please.' }, runId: 'edited' })).result;
    expect(withMessage.stop.reason).toBe('goal_achieved');
    expect(edited.calls[0]?.index).toBe(7);
    expect(edited.calls[0]?.messages.at(-1)).toMatchObject({ role: 'user', content: 'Only one more note, please.' });

    // Lower maxTurns at 3:3: turns 1–2 are counted, turn 3 is the last, and the model still asks for a tool.
    const bounded = await (await createKernel({ model: scriptedModel(script('m')), tools, store: b, policy: allow }).fork('source', { at: { task: 3, turn: 3 }, edit: { bounds: { inner: { maxTurns: 3 } } } })).result;
    expect(bounded.stop.reason).toBe('max_turns');
    expect(bounded.tasks[2]).toMatchObject({ turnCount: 3, stop: { reason: 'max_turns', bound: { limit: 3, value: 3 } } });

    // A fork of the edited fork, after its own point and before it.
    const later = scriptedModel(script('f'));
    const ofFork = await (await createKernel({ model: later, tools, store: b, policy: allow }).fork('edited', { at: { task: 3, turn: 3 }, runId: 'fork-of-fork' })).result;
    expect(later.calls[0]?.messages.some((message) => message.role === 'user' && message.content === 'Only one more note, please.')).toBe(true);
    expect(ofFork.tasks[2]?.turns[1]?.toolCalls[0]?.args).toEqual(withMessage.tasks[2]?.turns[1]?.toolCalls[0]?.args);
    const earlier = await (await createKernel({ model: scriptedModel(script('g')), tools, store: b, policy: allow }).fork('edited', { at: { task: 2 }, runId: 'before-its-point' })).result;
    expect(earlier.tasks.map((task) => task.output)).toEqual(['a one', 'g two', 'g three']);
    expect((await b.getRun('fork-of-fork'))?.forkOf).toEqual({ runId: 'edited', at: { task: 3, turn: 3 } });

    // Points that do not exist: a named error listing the valid ones; nothing is written.
    const runsBefore = (await b.listRuns()).length;
    for (const at of [{ task: 4 }, { task: 2, turn: 4 }, { task: 3, turn: 6 }]) {
      const error = await createKernel({ model: scriptedModel([]), store: b }).fork('source', { at }).catch((failure: unknown) => failure);
      expect(error).toMatchObject({ name: 'RunError', code: 'fork_point_not_found' });
      expect((error as Error).message).toContain('task 1 (turns 1–3), task 2 (turns 1–3), task 3 (turns 1–4)');
    }
    await expect(createKernel({ model: scriptedModel([]), store: b }).fork('nobody', { at: { task: 1 } })).rejects.toMatchObject({ code: 'run_not_found' });
    expect(await b.listRuns()).toHaveLength(runsBefore);
  });

  it('forks a running source from what it recorded without holding it up, and failed and cancelled sources', async () => {
    const { a, b } = pair(directory());
    const file = join(directory(), 'side.txt');
    const { tool: wait, release } = heldTool();
    const steps = script('a');
    steps[7] = { toolCalls: [{ name: 'wait', args: {}, id: 'wait-7' }] };
    const running = createKernel({ model: scriptedModel(steps), tools: [noteTool(file), wait], store: a }).start(TASKS, { runId: 'running' });
    // Task 3's second turn waits in its tool; its point (the checkpoint after turn 1) is recorded
    // once acknowledged, which on an asynchronous store may come after the tool started.
    let waiting = false;
    let recorded = false;
    for await (const event of running) {
      if (event.type === 'tool_execution_start' && event.name === 'wait') waiting = true;
      if (event.type === 'checkpoint_saved' && event.kind === 'turn' && event.taskIndex === 2 && event.turn === 1) recorded = true;
      if (waiting && recorded) break;
    }

    const forkModel = scriptedModel(script('r'));
    const fork = await (await createKernel({ model: forkModel, tools: [noteTool(file), wait], store: b }).fork('running', { at: { task: 3, turn: 2 } })).result;
    expect(fork.stop.reason).toBe('goal_achieved');
    expect(forkModel.calls.map((call) => call.index)).toEqual([7, 8, 9]);
    expect(await a.loadResult('running')).toBeUndefined();
    release();
    const done = await running.result;
    expect(done.stop.reason).toBe('goal_achieved');
    expect(done.tasks.map((task) => task.output)).toEqual(['a one', 'a two', 'a three']);
    expect((await b.loadResult('running'))?.stop.reason).toBe('goal_achieved');

    // Failed in task 3 (the model's provider fails): fork before the failing turn.
    const failing = script('a');
    failing[8] = { error: 'provider down' };
    const failed = await createKernel({ model: scriptedModel(failing), tools: [noteTool(file), wait], store: a }).start(TASKS, { runId: 'failed' }).result;
    expect(failed.stop.reason).toBe('error');
    const retried = await (await createKernel({ model: scriptedModel(script('a')), tools: [noteTool(file), wait], store: b }).fork('failed', { at: { task: 3, turn: 3 } })).result;
    expect(retried.stop.reason).toBe('goal_achieved');
    expect(retried.tasks.map((task) => task.turnCount)).toEqual([3, 3, 4]);

    // Cancelled during task 2: fork at task 2.
    const controller = new AbortController();
    const slow = script('a');
    slow[4] = { text: 'never', delayMs: 60_000 };
    const cancelled = createKernel({ model: scriptedModel(slow), tools: [noteTool(file), wait], store: a }).start(TASKS, { runId: 'cancelled', signal: controller.signal });
    for await (const event of cancelled) if (event.type === 'message_start' && event.taskId === 'task-2' && event.turn === 2) controller.abort();
    expect((await cancelled.result).stop.reason).toBe('context_canceled');
    const resumedFork = await (await createKernel({ model: scriptedModel(script('z')), tools: [noteTool(file), wait], store: b }).fork('cancelled', { at: { task: 2 } })).result;
    expect(resumedFork.stop.reason).toBe('goal_achieved');
    expect(resumedFork.tasks.map((task) => task.output)).toEqual(['a one', 'z two', 'z three']);
  });
});
