import { afterEach, describe, expect, it } from 'vitest';
import { createKernel, memoryStore } from 'dualloop';
import { startViewer, type Viewer } from 'dualloop/viewer';
import { scriptedModel, type ScriptStep } from 'dualloop/testing';
import { branchGate, taskOf, turnOf } from '../support/graph-fixtures.js';
import { foreignRequests, openBrowser, type TestBrowser } from './browser.js';

let browser: TestBrowser | undefined;
let viewer: Viewer | undefined;
afterEach(async () => {
  await browser?.close();
  await viewer?.close();
  browser = undefined;
  viewer = undefined;
});

describe('the viewer of a graph run, in a browser', () => {
  it('draws the task graph with each task’s state, and a lane per branch; a list run has neither', async () => {
    const store = memoryStore();
    const slow = branchGate('slow_lookup');
    const model = scriptedModel((call): ScriptStep => (taskOf(call) !== 'merge both' && turnOf(call) === 0 ? { toolCalls: [{ name: 'slow_lookup' }] } : { text: `${taskOf(call)}: done` }));
    const kernel = createKernel({ model, store, tools: [slow.tool], bounds: { outer: { maxParallelTasks: 2 } } });
    const run = kernel.start(
      [
        { id: 'left', description: 'look left', dependsOn: [] },
        { id: 'right', description: 'look right', dependsOn: [] },
        { id: 'merge', description: 'merge both', dependsOn: ['left', 'right'] },
      ],
      { runId: 'graph-run' },
    );
    await createKernel({ model: scriptedModel([{ text: 'one' }]), store }).start(['one'], { runId: 'list-run' }).result;
    viewer = await startViewer({ store, runId: 'graph-run', pollMs: 50 });
    browser = await openBrowser();
    const { page } = browser;
    const node = (taskId: string) => page.locator(`.task-graph [data-task-id="${taskId}"]`);

    await slow.allIn;
    await page.goto(viewer.url);
    // Both branches wait in their tool at once: two turn machines in ACT, merge not started.
    await node('right').and(page.locator('[data-state="running"]')).waitFor();
    await page.locator('.task-graph [data-task-id="left"] .task-state').getByText('ACT · turn 1').waitFor();
    expect(await node('left').getAttribute('data-state')).toBe('running');
    expect(await page.locator('.task-graph [data-task-id="right"] .task-state').textContent()).toBe('ACT · turn 1');
    expect(await node('merge').getAttribute('data-state')).toBe('waiting');
    expect(await page.getByTestId('tasks-running').textContent()).toBe('2 running · 0/3 ended');
    const edges = await page.locator('.task-graph path.dependency').evaluateAll((paths) => paths.map((path) => `${path.getAttribute('data-source')}→${path.getAttribute('data-target')}`));
    expect(edges.sort()).toEqual(['left→merge', 'right→merge']);
    expect(await page.locator('.lanes [data-lane]').evaluateAll((lanes) => lanes.map((lane) => lane.getAttribute('data-lane')))).toEqual(['left', 'right']);
    expect(await page.locator('.lanes .lane-span.running').count()).toBe(2);
    await browser.screenshot('graph-two-branches-running');

    slow.open();
    await run.result;
    await page.locator('.task-graph [data-task-id="merge"][data-state="ended"][data-reason="planner_stopped"]').waitFor();
    expect(await page.locator('.task-graph [data-state="ended"]').count()).toBe(3);
    await page.locator('.lanes [data-lane="merge"]').waitFor();
    const span = async (lane: string) => {
      const element = page.locator(`.lanes [data-lane="${lane}"] .lane-span`);
      return { from: Number(await element.getAttribute('data-from')), to: Number(await element.getAttribute('data-to')), reason: await element.getAttribute('data-reason') };
    };
    const [left, right, merge] = [await span('left'), await span('right'), await span('merge')];
    // The branches overlapped; merge started once both had ended.
    expect(left.from).toBeLessThan(right.to);
    expect(right.from).toBeLessThan(left.to);
    expect(merge.from).toBeGreaterThanOrEqual(Math.max(left.to, right.to));
    expect([left.reason, right.reason, merge.reason]).toEqual(['planner_stopped', 'planner_stopped', 'planner_stopped']);
    // The stop tree lists the tasks in task order with what each waits for.
    await page.locator('.stop-tree [data-task-id="merge"]').getByText('← after left, right').waitFor();
    expect(await page.locator('.stop-tree > .tasks > li').evaluateAll((items) => items.map((item) => item.getAttribute('data-task-id')))).toEqual(['left', 'right', 'merge']);
    await browser.screenshot('graph-finished');

    // Replay: clicking the left lane's bar goes back to the left task's end; merge had not started.
    await page.locator('.lanes [data-lane="left"] .lane-span').click();
    await node('left').and(page.locator('[data-state="ended"]')).waitFor();
    expect(await node('merge').getAttribute('data-state')).toBe('waiting');
    expect(await page.locator('.lanes [data-lane="merge"]').count()).toBe(0);

    // A list run: no task graph, no lanes, the event timeline as always.
    await page.goto(`${viewer.url.replace(/\?.*$/, '')}?run=list-run`);
    await page.getByTestId('run-status').getByText('stopped: goal_achieved').waitFor();
    expect(await page.locator('.graph-run').count()).toBe(0);
    expect(await page.locator('.timeline .row').count()).toBeGreaterThan(3);

    expect(foreignRequests(browser.requests, viewer.url.replace(/\/\?.*$/, ''))).toEqual([]);
    expect(browser.errors).toEqual([]);
  });
});
