import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createKernel, sqliteStore, type CheckpointStore, type PolicyGate } from 'dualloop';
import { startViewer, type Viewer } from 'dualloop/viewer';
import { scriptedModel, type ScriptStep } from 'dualloop/testing';
import { noteTool } from '../fork/fork-helpers.js';
import { useTempDir } from '../store/temp-dir.js';
import { foreignRequests, openBrowser, type TestBrowser } from './browser.js';

/*
 * "Fork from here" with a 3-task workflow on a SQLite store: a button on every turn of every task,
 * a click on a turn of task 3 follows the new run, a click on a turn of the fork's own timeline
 * forks the fork, and a fork before a parked approval parks again.
 */

let browser: TestBrowser | undefined;
let viewer: Viewer | undefined;
let store: (CheckpointStore & { close?: () => unknown }) | undefined;
afterEach(async () => {
  await browser?.close();
  await viewer?.close();
  await store?.close?.();
  browser = undefined;
  viewer = undefined;
  store = undefined;
});

const note = (text: string): ScriptStep => ({ toolCalls: [{ name: 'note', args: { text } }] });
// Task 1: 2 turns; task 2: 1 turn; task 3: 3 turns.
const steps = (prefix: string): ScriptStep[] => [note(`${prefix}0`), { text: `${prefix} one` }, { text: `${prefix} two` }, note(`${prefix}3`), note(`${prefix}4`), { text: `${prefix} three` }];

describe('fork from here with three tasks, in a browser', () => {
  const directory = useTempDir('dualloop-viewer-fork-');

  it('offers every turn of every task, forks at a turn of task 3, then forks the fork from its own timeline', async () => {
    store = sqliteStore({ path: join(directory(), 'runs.db') });
    const tools = [noteTool(join(directory(), 'notes.txt'))];
    await createKernel({ model: scriptedModel(steps('a')), tools, store }).start(['gather', 'think', 'write'], { runId: 'source' }).result;
    const models: ReturnType<typeof scriptedModel>[] = [];
    const fork = async (runId: string, at: { task: number; turn?: number }) => {
      const model = scriptedModel(steps(`f${models.length}`));
      models.push(model);
      return (await createKernel({ model, tools, store: store! }).fork(runId, { at })).runId;
    };
    viewer = await startViewer({ store, runId: 'source', pollMs: 50, control: { fork } });
    browser = await openBrowser();
    const { page } = browser;
    await page.goto(viewer.url);
    await page.getByTestId('run-status').getByText('stopped: goal_achieved').waitFor();
    const points = () => page.getByTestId('fork-from-here').evaluateAll((elements) => elements.map((element) => element.getAttribute('data-at')));
    expect(await points()).toEqual(['1:1', '1:2', '2:1', '3:1', '3:2', '3:3']);

    await page.locator('[data-testid="fork-from-here"][data-at="3:2"]').click();
    await page.locator('.timeline .row').first().getByText('forked from source at 3:2').waitFor();
    await page.getByTestId('run-status').getByText('stopped: goal_achieved').waitFor();
    const first = new URL(page.url()).searchParams.get('run')!;
    expect(first).not.toBe('source');
    expect(await store.getRun(first)).toMatchObject({ forkOf: { runId: 'source', at: { task: 3, turn: 2 } } });
    expect((await store.loadResult(first))?.tasks.map((task) => task.output)).toEqual(['a one', 'a two', 'f0 three']);
    expect(models[0]!.calls.map((call) => call.index)).toEqual([4, 5]);

    // The fork's own timeline holds the turns it ran, each with its button; forking the fork at its last turn.
    await page.locator('[data-testid="fork-from-here"][data-at="3:3"]').click();
    await page.locator('.timeline .row').first().getByText(`forked from ${first} at 3:3`).waitFor();
    await page.getByTestId('run-status').getByText('stopped: goal_achieved').waitFor();
    const second = new URL(page.url()).searchParams.get('run')!;
    expect(await store.getRun(second)).toMatchObject({ forkOf: { runId: first, at: { task: 3, turn: 3 } } });
    expect((await store.loadResult(second))?.tasks.map((task) => task.output)).toEqual(['a one', 'a two', 'f1 three']);
    expect(models[1]!.calls.map((call) => call.index)).toEqual([5]);
    await page.locator(`select[aria-label="run"] option[value="${second}"][data-depth="2"]`).waitFor({ state: 'attached' });
    const options = await page.locator('select[aria-label="run"] option').evaluateAll((elements) => elements.map((element) => (element as HTMLOptionElement).value));
    expect(options).toEqual(['source', first, second]);

    expect(foreignRequests(browser.requests, viewer.url.replace(/\/\?.*$/, ''))).toEqual([]);
    expect(browser.errors).toEqual([]);
  }, 60_000);

  it('forks a parked run before its parked turn: the fork asks for the approval again', async () => {
    store = sqliteStore({ path: join(directory(), 'runs.db') });
    const tools = [noteTool(join(directory(), 'notes.txt'))];
    const gate: PolicyGate = { checkToolCall: (request) => (JSON.stringify(request.args).includes('3') ? { decision: 'require_approval', reason: 'needs a look' } : { decision: 'allow' }) };
    const parked = await createKernel({ model: scriptedModel(steps('a')), tools, store, policy: gate }).start(['gather', 'think', 'write'], { runId: 'parked' }).result;
    expect(parked.stop.reason).toBe('awaiting_approval');
    viewer = await startViewer({ store, runId: 'parked', pollMs: 50, control: { fork: async (runId, at) => (await createKernel({ model: scriptedModel(steps('a')), tools, store: store!, policy: gate }).fork(runId, { at })).runId } });
    browser = await openBrowser();
    const { page } = browser;
    await page.goto(viewer.url);
    await page.getByTestId('run-status').getByText('awaiting_approval').first().waitFor();
    await page.locator('[data-testid="fork-from-here"][data-at="3:1"]').click();
    await page.locator('.timeline .row').first().getByText('forked from parked at 3').waitFor();
    await page.getByTestId('run-status').getByText('awaiting_approval').first().waitFor();
    const forked = new URL(page.url()).searchParams.get('run')!;
    expect((await store.audit(forked))?.workflow.stop?.reason).toBe('awaiting_approval');
    expect(browser.errors).toEqual([]);
  }, 60_000);
});
