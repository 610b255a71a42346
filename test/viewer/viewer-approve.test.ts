import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { approveRun, createKernel, defineTool, sqliteStore, type CheckpointStore, type ControlChannel, type PolicyGate } from 'dualloop';
import { startViewer, type Viewer, type ViewerControl } from 'dualloop/viewer';
import { scriptedModel } from 'dualloop/testing';
import { post } from './post-request.js';
import { waitingApprovals } from '../../src/viewer/model/waiting-approvals.js';
import { useTempDir } from '../store/temp-dir.js';
import { openBrowser, type TestBrowser } from './browser.js';

/*
 * The viewer's approval control: a parked run's approvals, each call's arguments in an editable
 * field; approve (as edited) or reject with a message for the model. Answers go through the store
 * (`approveRun`), checked against the tool's schema before they are stored.
 */

let browser: TestBrowser | undefined;
let viewer: Viewer | undefined;
let store: (CheckpointStore & { close(): void }) | undefined;
afterEach(async () => {
  await browser?.close();
  await viewer?.close();
  store?.close();
  browser = undefined;
  viewer = undefined;
  store = undefined;
});

function deployWorkflow(on: CheckpointStore) {
  const deployed: unknown[] = [];
  const deploy = defineTool({
    name: 'deploy',
    description: 'Deploys a service.',
    parameters: z.object({ service: z.string(), env: z.enum(['staging', 'prod']) }),
    execute: (args) => (deployed.push(args), `deployed to ${args.env}`),
  });
  const policy: PolicyGate = { checkToolCall: () => ({ decision: 'require_approval', reason: 'deploys need a human' }) };
  const model = scriptedModel([{ toolCalls: [{ name: 'deploy', args: { service: 'api', env: 'prod' }, id: 'call-deploy' }] }, { text: 'done' }]);
  const kernel = createKernel({ model, tools: [deploy], store: on, policy });
  const control: ViewerControl = {
    fork: () => Promise.reject(new Error('not in this test')),
    approve: (runId, { approvalId, answer }) => approveRun(on, runId, { callId: approvalId, answer, tools: [deploy] }),
  };
  return { kernel, control, deployed };
}

const answers = async (runId: string) => (await (store as unknown as ControlChannel).approvalAnswers(runId)) as ReadonlyMap<string, unknown>;

describe('the viewer’s approval control', () => {
  const directory = useTempDir('dualloop-viewer-approve-');

  it('lists what a parked run waits for, with the proposed arguments; nothing for a run that is not parked', async () => {
    store = sqliteStore({ path: join(directory(), 'runs.db') });
    const { kernel } = deployWorkflow(store);
    await kernel.start(['ship it'], { runId: 'parked' }).result;
    const events = await store.readEvents('parked');
    expect(waitingApprovals(events)).toEqual([
      { approvalId: 'call-deploy', subject: 'tool', taskId: 'task-1', toolName: 'deploy', reason: 'deploys need a human', proposedArgs: { service: 'api', env: 'prod' } },
    ]);
    expect(waitingApprovals(events.slice(0, -1))).toEqual([]);
  });

  it('answers for the viewer’s own page only, refuses arguments the tool refuses (400, nothing stored), stores a valid edit', async () => {
    store = sqliteStore({ path: join(directory(), 'runs.db') });
    const { kernel, control } = deployWorkflow(store);
    await kernel.start(['ship it'], { runId: 'parked' }).result;

    viewer = await startViewer({ store, control: { fork: control.fork } });
    let origin = `http://${viewer.host}:${viewer.port}`;
    expect(await (await fetch(`${origin}/api/runs`)).json()).toMatchObject({ control: true, approve: false });
    expect((await post(viewer, '/api/runs/parked/approve', '{}', { origin, 'content-type': 'application/json' })).status).toBe(403);
    await viewer.close();

    viewer = await startViewer({ store, control });
    origin = `http://${viewer.host}:${viewer.port}`;
    expect(await (await fetch(`${origin}/api/runs`)).json()).toMatchObject({ control: true, approve: true });
    const edit = JSON.stringify({ approvalId: 'call-deploy', answer: { decision: 'approve', args: { service: 'api', env: 'staging' } } });
    expect((await post(viewer, '/api/runs/parked/approve', edit, { origin: 'http://evil.example', 'content-type': 'application/json' })).status).toBe(403);
    expect((await post(viewer, '/api/runs/parked/approve', edit, { origin, 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post(viewer, '/api/runs/parked/approve', '{"answer":"approve"}', { origin, 'content-type': 'application/json' })).status).toBe(400);
    const refused = await post(viewer, '/api/runs/parked/approve', JSON.stringify({ approvalId: 'call-deploy', answer: { decision: 'approve', args: { env: 'moon' } } }), { origin, 'content-type': 'application/json' });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'config_invalid', issues: [{ path: 'answer.args.service' }, { path: 'answer.args.env' }] });
    expect((await answers('parked')).size).toBe(0);

    const accepted = await post(viewer, '/api/runs/parked/approve', edit, { origin, 'content-type': 'application/json' });
    expect(accepted).toEqual({ status: 200, body: JSON.stringify({ approvalId: 'call-deploy' }) });
    expect((await answers('parked')).get('call-deploy')).toEqual({ decision: 'approve', args: { service: 'api', env: 'staging' } });
    const twice = await post(viewer, '/api/runs/parked/approve', edit, { origin, 'content-type': 'application/json' });
    expect(twice.status).toBe(409);
    expect(JSON.parse(twice.body)).toMatchObject({ code: 'approval_answered' });
  });

  it('in a browser: the arguments are an editable field; an edited approval is stored and the resume runs it', async () => {
    store = sqliteStore({ path: join(directory(), 'runs.db') });
    const { kernel, control, deployed } = deployWorkflow(store);
    await kernel.start(['ship it'], { runId: 'parked' }).result;
    viewer = await startViewer({ store, runId: 'parked', control, pollMs: 50 });
    browser = await openBrowser();
    const { page } = browser;
    await page.goto(viewer.url);

    const form = page.locator('form.approval[data-approval-id="call-deploy"]');
    const field = form.getByLabel('arguments');
    await field.waitFor();
    expect(JSON.parse(await field.inputValue())).toEqual({ service: 'api', env: 'prod' });
    await field.fill('{ "service": "api", "env": "moon" }');
    await form.getByTestId('approve').click();
    await expect.poll(() => form.getByTestId('approval-status').textContent()).toContain('answer.args.env');
    expect((await answers('parked')).size).toBe(0);

    await field.fill('{ "service": "api", "env": "staging" }');
    await form.getByTestId('approve').click();
    await expect.poll(() => form.getByTestId('approval-status').textContent()).toContain('approved with the edited arguments');
    expect(await form.getByTestId('approve').isDisabled()).toBe(true);
    await browser.screenshot('approval-edited');
    expect((await answers('parked')).get('call-deploy')).toEqual({ decision: 'approve', args: { service: 'api', env: 'staging' } });

    const result = await (await kernel.resume('parked')).result;
    expect(result.stop.reason).toBe('goal_achieved');
    expect(deployed).toEqual([{ service: 'api', env: 'staging' }]);
    expect(browser.errors.filter((error) => !error.includes('400'))).toEqual([]);
  });
});
