import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { createKernel, defineTool, memoryStore } from 'dualloop';
import { startViewer, type Viewer } from 'dualloop/viewer';
import { scriptedModel } from 'dualloop/testing';
import { activeStates, foreignRequests, openBrowser, type TestBrowser } from './browser.js';
import { pausePoints } from './pause-points.js';

let browser: TestBrowser | undefined;
let viewer: Viewer | undefined;
afterEach(async () => {
  await browser?.close();
  await viewer?.close();
  browser = undefined;
  viewer = undefined;
});

const add = defineTool({ name: 'add', description: 'Adds.', parameters: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => a + b });

const BOUNDS = { inner: { maxTurns: 5, maxToolCalls: 10, maxRuntimeMs: 600_000 }, outer: { maxWorkflowSteps: 10, maxSessionRuntimeMs: 3_600_000, maxTokens: 10_000, maxReplans: 3 } };

describe('the viewer in a browser', () => {
  it('follows a run live (a slow tool pauses it in TASK_EXECUTE / ACT), shows the stop tree after it, and replays it', async () => {
    const pauses = pausePoints();
    const store = memoryStore();
    const slow = defineTool({
      name: 'slow_lookup',
      description: 'Waits until the test lets it finish.',
      parameters: z.object({ query: z.string() }),
      execute: async ({ query }) => {
        await pauses.enter('tool');
        return { found: `${query}: 42` };
      },
    });
    const kernel = createKernel({
      model: scriptedModel([
        { toolCalls: [{ name: 'add', args: { a: 2, b: 3 } }], usage: { inputTokens: 100, outputTokens: 20 } },
        { toolCalls: [{ name: 'slow_lookup', args: { query: 'answer' } }], usage: { inputTokens: 150, outputTokens: 25 } },
        { text: 'The answer is 42.', usage: { inputTokens: 200, outputTokens: 10 } },
        { text: 'Second task done.', usage: { inputTokens: 50, outputTokens: 5 } },
      ]),
      tools: [add, slow],
      store,
      bounds: BOUNDS,
    });
    const run = kernel.start([{ id: 'lookup', description: 'Find the answer.' }, { id: 'report', description: 'Report it.' }], { runId: 'browser-run' });
    viewer = await startViewer({ store, runId: run.runId, bounds: () => BOUNDS, pollMs: 50 });
    browser = await openBrowser();
    const { page } = browser;

    await pauses.next();
    await page.goto(viewer.url);
    await page.locator('[data-machine="turn"] [data-state="ACT"][data-active="true"]').waitFor();
    expect(await activeStates(page, 'workflow')).toEqual(['TASK_EXECUTE']);
    expect(await activeStates(page, 'turn')).toEqual(['ACT']);
    const turns = page.locator('[data-gauge="turns"]');
    expect(await turns.getAttribute('data-value')).toBe('2');
    expect(await turns.locator('.gauge-value').textContent()).toBe('2 / 5');
    expect(await page.locator('[data-gauge="toolCalls"] .gauge-value').textContent()).toBe('1 / 10');
    expect(await page.locator('[data-gauge="runTokens"] .gauge-value').textContent()).toBe('295 / 10,000');
    expect(await page.getByTestId('run-status').textContent()).toBe('running');
    await browser.screenshot('live-paused-on-slow-tool');

    pauses.release();
    await run.result;
    await page.locator('[data-task-id="report"][data-reason="planner_stopped"]').waitFor();
    expect(await page.locator('[data-task-id="lookup"]').getAttribute('data-reason')).toBe('planner_stopped');
    expect(await page.locator('.workflow-stop').getAttribute('data-reason')).toBe('goal_achieved');
    expect(await activeStates(page, 'workflow')).toEqual(['DONE']);
    expect(await page.getByTestId('run-status').textContent()).toBe('stopped: goal_achieved');
    await browser.screenshot('finished-with-stop-tree');

    // Replay: back to the slow tool's start, then to the very beginning.
    const events = await store.readEvents('browser-run');
    const slowStart = events.find((event) => event.type === 'tool_execution_start' && event.name === 'slow_lookup')!;
    await page.locator(`.timeline [data-seq="${slowStart.seq}"] .row-main`).click();
    await page.locator('[data-machine="workflow"] [data-state="TASK_EXECUTE"][data-active="true"]').waitFor();
    expect(await activeStates(page, 'turn')).toEqual(['ACT']);
    expect(await turns.getAttribute('data-value')).toBe('2');
    await browser.screenshot('replay-at-slow-tool');
    await page.getByRole('button', { name: 'to the start' }).click();
    await page.locator('[data-machine="workflow"] [data-state="INIT"][data-active="true"]').waitFor();
    expect(await activeStates(page, 'turn')).toEqual([]);
    expect(await page.getByTestId('position').textContent()).toContain(`event 0 / ${events.length}`);

    // The details of a tool call open on demand.
    const slowEnd = events.find((event) => event.type === 'tool_execution_end' && event.name === 'slow_lookup')!;
    await page.locator(`.timeline [data-seq="${slowEnd.seq}"] .details-toggle`).click();
    const details = await page.locator(`.timeline [data-seq="${slowEnd.seq}"] .details`).textContent();
    expect(details).toContain('"query": "answer"');
    expect(details).toContain('answer: 42');

    expect(foreignRequests(browser.requests, viewer.url.replace(/\/\?.*$/, ''))).toEqual([]);
    expect(browser.errors).toEqual([]);
  });
});


describe('fork from here, in a browser', () => {
  it('forks a finished run before a turn, follows the new run at once, and lists it under its parent', async () => {
    const store = memoryStore();
    const steps = [{ toolCalls: [{ name: 'add', args: { a: 2, b: 3 } }] }, { toolCalls: [{ name: 'add', args: { a: 5, b: 5 } }] }, { text: 'The sum is 10.' }];
    await createKernel({ model: scriptedModel(steps), tools: [add], store }).start([{ id: 'sum', description: 'Add things.' }], { runId: 'source' }).result;
    // The fork's model answers differently from turn 2 on.
    const forkModel = scriptedModel([steps[0]!, { text: 'The sum is 5.' }]);
    const kernel = createKernel({ model: forkModel, tools: [add], store });
    viewer = await startViewer({ store, runId: 'source', pollMs: 50, control: { fork: async (runId, at) => (await kernel.fork(runId, { at })).runId } });
    browser = await openBrowser();
    const { page } = browser;
    await page.goto(viewer.url);
    await page.getByTestId('run-status').getByText('stopped: goal_achieved').waitFor();
    const buttons = page.getByTestId('fork-from-here');
    expect(await buttons.evaluateAll((elements) => elements.map((element) => element.getAttribute('data-at')))).toEqual(['1:1', '1:2', '1:3']);
    expect(await buttons.first().isEnabled()).toBe(true);

    await page.locator('[data-testid="fork-from-here"][data-at="1:2"]').click();
    // The page follows the new run at once: its timeline starts with where it came from.
    await page.locator('.timeline .row').first().getByText('forked from source at 1:2').waitFor();
    await page.getByTestId('run-status').getByText('stopped: goal_achieved').waitFor();
    const forked = (await store.listRuns()).find((run) => run.forkOf !== undefined)!;
    expect(forked.forkOf).toEqual({ runId: 'source', at: { task: 1, turn: 2 } });
    expect(new URL(page.url()).searchParams.get('run')).toBe(forked.runId);
    expect(await page.locator('select[aria-label="run"]').inputValue()).toBe(forked.runId);
    expect((await store.loadResult(forked.runId))?.tasks[0]?.output).toBe('The sum is 5.');
    expect(forkModel.calls.map((call) => call.index)).toEqual([1]);
    // The run list shows the fork right under its parent.
    await page.locator(`select[aria-label="run"] option[value="${forked.runId}"][data-depth="1"]`).waitFor({ state: 'attached' });
    const options = await page.locator('select[aria-label="run"] option').evaluateAll((elements) => elements.map((element) => (element as HTMLOptionElement).value));
    expect(options).toEqual(['source', forked.runId]);
    await browser.screenshot('forked-from-turn-2');

    expect(foreignRequests(browser.requests, viewer.url.replace(/\/\?.*$/, ''))).toEqual([]);
    expect(browser.errors).toEqual([]);
  });

  it('shows "fork from here" disabled when the viewer was started without control', async () => {
    const store = memoryStore();
    await createKernel({ model: scriptedModel([{ text: 'done' }]), store }).start(['one'], { runId: 'source' }).result;
    viewer = await startViewer({ store, runId: 'source', pollMs: 50 });
    browser = await openBrowser();
    await browser.page.goto(viewer.url);
    await browser.page.getByTestId('run-status').getByText('stopped: goal_achieved').waitFor();
    const button = browser.page.getByTestId('fork-from-here');
    expect(await button.count()).toBe(1);
    expect(await button.isDisabled()).toBe(true);
    expect(browser.errors).toEqual([]);
  });
});
