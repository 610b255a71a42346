import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { agentTool, createKernel, defineTool, memoryStore, postgresStore, type CheckpointStore } from 'dualloop';
import { startViewer } from 'dualloop/viewer';
import { scriptedModel, type ScriptCall, type ScriptStep } from 'dualloop/testing';
import { activeStates, foreignRequests, openBrowser } from './browser.js';
import { pausePoints } from './pause-points.js';
import { readEvents } from './sse-client.js';
import { postgresUrl, useSchemas } from '../support/postgres.js';

/** What a test opened (viewers, browsers, stores), closed after it in reverse order. */
const opened: { close?(): unknown }[] = [];
afterEach(async () => {
  for (const each of opened.splice(0).reverse()) await each.close?.();
});
async function open<T extends { close?(): unknown }>(thing: Promise<T> | T): Promise<T> {
  const value = await thing;
  opened.push(value);
  return value;
}

const taskText = (call: ScriptCall) => {
  const first = call.messages.find((message) => message.role === 'user');
  return typeof first?.content === 'string' ? first.content : '';
};
const toolAnswers = (call: ScriptCall) => call.messages.filter((message) => message.role === 'tool').length;

/**
 * A writer that calls its researcher twice, with the same call id both times (models do: ADR/0304),
 * then answers. The researcher looks a source up, which waits for the test the first time; with
 * `holdFirstCall` the writer's first call waits too, after its start, before its child is recorded.
 */
function writerWorkflow(store: CheckpointStore = memoryStore(), { holdFirstCall = false } = {}) {
  const pauses = pausePoints();
  let held = false;
  const beforeToolCall = async ({ name }: { readonly name: string }) => {
    if (!holdFirstCall || name !== 'research' || held) return;
    held = true;
    await pauses.enter('research');
  };
  let lookups = 0;
  const lookUp = defineTool({
    name: 'look_up',
    description: 'Looks a source up.',
    parameters: z.object({}),
    execute: async () => {
      lookups += 1;
      if (lookups === 1) await pauses.enter('look_up');
      return 'a source';
    },
  });
  const research = agentTool({ name: 'research', description: 'Researches.', parameters: z.object({ topic: z.string() }), tasks: ({ topic }) => [`Research ${topic}.`], tools: [lookUp] });
  const model = scriptedModel((call): ScriptStep => {
    if (taskText(call).startsWith('Research')) return toolAnswers(call) === 0 ? { toolCalls: [{ name: 'look_up', id: 'call-look', args: {} }] } : { text: 'found a source' };
    const answers = toolAnswers(call);
    return answers < 2 ? { toolCalls: [{ name: 'research', id: 'call_0', args: { topic: answers === 0 ? 'otters' : 'beavers' } }] } : { text: 'Draft written.' };
  });
  return { pauses, store, kernel: createKernel({ model, tools: [research], store, beforeToolCall }) };
}

describe('delegated runs in the viewer', () => {
  it('links a delegating tool call to its child run, live; the child links back; the run list nests children', async () => {
    const { pauses, store, kernel } = writerWorkflow();
    const run = kernel.start(['Write about otters and beavers.'], { runId: 'writer' });
    const viewer = await open(startViewer({ store, runId: 'writer', pollMs: 50 }));
    const browser = await open(openBrowser());
    const { page } = browser;

    // The child is still running (its tool waits): the call's rows already link to it.
    await pauses.next();
    await page.goto(viewer.url);
    const firstChild = page.locator('[data-testid="open-child-run"][data-run="writer.t0.1.0"]');
    await firstChild.first().waitFor();
    expect(await page.getByTestId('run-status').textContent()).toBe('running');
    await browser.screenshot('parent-links-running-child');

    await firstChild.first().click();
    await page.locator('[data-machine="turn"] [data-state="ACT"][data-active="true"]').waitFor();
    expect(new URL(page.url()).searchParams.get('run')).toBe('writer.t0.1.0');
    expect(await page.locator('.timeline .row').first().textContent()).toContain('started: 1 task');
    expect(await page.locator('.timeline .row[data-type="task_start"]').textContent()).toContain('Research otters.');
    const back = page.getByTestId('parent-run');
    expect(await back.textContent()).toBe('← child of writer (call call_0)');
    await browser.screenshot('child-run-live');

    pauses.release();
    expect((await run.result).stop.reason).toBe('goal_achieved');
    await page.getByTestId('run-status').getByText('stopped: goal_achieved').waitFor();
    expect(await activeStates(page, 'workflow')).toEqual(['DONE']);

    // Back to the parent: each of the two calls (same id, two turns) opens its own child.
    await back.click();
    await page.getByTestId('run-status').getByText('stopped: goal_achieved').waitFor();
    expect(new URL(page.url()).searchParams.get('run')).toBe('writer');
    const links = page.getByTestId('open-child-run');
    await page.locator('[data-testid="open-child-run"][data-run="writer.t0.2.0"]').first().waitFor();
    const linked = await links.evaluateAll((elements) => elements.map((element) => [element.closest('li')?.getAttribute('data-type'), element.closest('li')?.querySelector('.where')?.textContent, element.getAttribute('data-run')]));
    expect(linked).toEqual([
      ['tool_execution_start', 'task-1 · 1', 'writer.t0.1.0'],
      ['tool_execution_end', 'task-1 · 1', 'writer.t0.1.0'],
      ['tool_execution_start', 'task-1 · 2', 'writer.t0.2.0'],
      ['tool_execution_end', 'task-1 · 2', 'writer.t0.2.0'],
    ]);
    await browser.screenshot('parent-links-both-children');
    // The run list shows both children under their parent.
    await page.locator('select[aria-label="run"] option[value="writer.t0.2.0"][data-depth="1"]').waitFor({ state: 'attached' });
    const options = await page.locator('select[aria-label="run"] option').evaluateAll((elements) => elements.map((element) => [(element as HTMLOptionElement).value, element.getAttribute('data-depth')]));
    expect(options).toEqual([
      ['writer', '0'],
      ['writer.t0.1.0', '1'],
      ['writer.t0.2.0', '1'],
    ]);
    expect(await page.locator('select[aria-label="run"] option[value="writer.t0.1.0"]').textContent()).toContain('delegated by call_0');

    await links.nth(2).click();
    await page.locator('.timeline .row[data-type="task_start"]').getByText('Research beavers.').waitFor();
    expect(new URL(page.url()).searchParams.get('run')).toBe('writer.t0.2.0');
    await browser.screenshot('second-child-run');

    expect(foreignRequests(browser.requests, viewer.url.replace(/\/\?.*$/, ''))).toEqual([]);
    expect(browser.errors).toEqual([]);
  }, 60_000);

  it('streams the children again to a page that reconnects after them (Last-Event-ID)', async () => {
    const { pauses, store, kernel } = writerWorkflow();
    const run = kernel.start(['Write.'], { runId: 'writer' });
    await pauses.next();
    pauses.release();
    await run.result;
    const viewer = await open(startViewer({ store, pollMs: 50 }));
    const events = await store.readEvents('writer');
    const url = `http://127.0.0.1:${viewer.port}/api/runs/writer/stream`;
    const childrenOf = async (headers: Record<string, string>) => {
      const received = await readEvents(url, (messages) => messages.some((message) => message.event === 'children' && message.data.length === 2), { headers });
      return received.find((message) => message.event === 'children')?.data;
    };
    const expected = [
      { runId: 'writer.t0.1.0', taskId: 'task-1', turn: 1, toolCallId: 'call_0' },
      { runId: 'writer.t0.2.0', taskId: 'task-1', turn: 2, toolCallId: 'call_0' },
    ];
    expect(await childrenOf({})).toEqual(expected);
    expect(await childrenOf({ 'last-event-id': String(events.at(-1)!.seq) })).toEqual(expected);
    // A run that delegated nothing has no children message; a child says who its parent is.
    const child = await readEvents(`http://127.0.0.1:${viewer.port}/api/runs/writer.t0.1.0/stream`, (messages) => messages.some((message) => message.event === 'audit'));
    expect(child.find((message) => message.event === 'run')?.data.parent).toEqual({ runId: 'writer', toolCallId: 'call_0' });
    expect(child.some((message) => message.event === 'children')).toBe(false);
  });
});

describe('delegated runs in the viewer, on Postgres', () => {
  const schema = useSchemas('delegation_view');
  it('finds a running child although the parent’s log does not grow (no notification says so)', async () => {
    const store = await open(postgresStore({ connectionString: postgresUrl() }, { schema: schema(), safetyPollMs: 2_147_483_647 }));
    const { pauses, kernel } = writerWorkflow(store, { holdFirstCall: true });
    const run = kernel.start(['Write.'], { runId: 'writer' });
    expect(await pauses.next()).toBe('research');
    const viewer = await open(startViewer({ store, pollMs: 50 }));
    let released = false;
    const received = await readEvents(`http://127.0.0.1:${viewer.port}/api/runs/writer/stream`, (messages) => {
      // The page has the call's start and no child yet: let the call go on and start its child, once
      // the store's listener is surely up (its first resync wakes every stream once).
      if (!released && messages.some((message) => message.event === 'events' && message.data.some((event: { type: string }) => event.type === 'tool_execution_start'))) {
        released = true;
        setTimeout(() => pauses.release(), 1_000);
      }
      return messages.some((message) => message.event === 'children');
    });
    // Found while the child waits in its tool: the parent's last event is still the call's start.
    expect(await pauses.next()).toBe('look_up');
    expect(received.find((message) => message.event === 'children')?.data).toEqual([{ runId: 'writer.t0.1.0', taskId: 'task-1', turn: 1, toolCallId: 'call_0' }]);
    expect(received.filter((message) => message.event === 'events').flatMap((message) => message.data).at(-1)).toMatchObject({ type: 'tool_execution_start', name: 'research' });
    pauses.release();
    expect((await run.result).stop.reason).toBe('goal_achieved');
  });
});
