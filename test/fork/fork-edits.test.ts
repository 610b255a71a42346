import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, createKernel, memoryStore } from 'dualloop';
import { manualClock, scriptedModel, type ScriptStep } from 'dualloop/testing';
import { useTempDir } from '../store/temp-dir.js';
import { noteTool, sideFile } from './fork-helpers.js';

const noting = (index: number): ScriptStep => ({ toolCalls: [{ name: 'note', args: { text: `n ${index}` } }], usage: { inputTokens: 4, outputTokens: 1 } });

describe('fork edits', () => {
  const directory = useTempDir('dualloop-fork-');

  it('appends an edited user message that the next model call sees, at a turn point and at a task point', async () => {
    const store = memoryStore();
    const file = join(directory(), 'notes.txt');
    const steps: ScriptStep[] = [noting(0), { text: 'done one' }, noting(2), { text: 'done two' }];
    const kernel = createKernel({ model: scriptedModel(steps), tools: [noteTool(file)], store });
    await kernel.start(['write notes', 'write more'], { runId: 'source' }).result;

    const model = scriptedModel(steps);
    const forkKernel = createKernel({ model, tools: [noteTool(file)], store });
    const fork = await (await forkKernel.fork('source', { at: { task: 1, turn: 2 }, edit: { message: 'write in French' } })).result;
    expect(fork.stop.reason).toBe('goal_achieved');
    const seen = model.calls[0]!.messages;
    expect(seen.at(-1)).toEqual({ role: 'user', content: 'write in French', source: 'steering' });
    expect(seen.at(-2)).toMatchObject({ role: 'tool', content: 'noted n 0' });

    const atTask = scriptedModel(steps);
    // A task may be named by its id: the fork records its number.
    const byId = await (await createKernel({ model: atTask, tools: [noteTool(file)], store }).fork('source', { at: { task: 'task-2' }, edit: { message: 'be brief' } })).result;
    expect((await store.getRun(byId.runId))?.forkOf).toEqual({ runId: 'source', at: { task: 2 } });
    expect(atTask.calls[0]!.index).toBe(2);
    expect(atTask.calls[0]!.messages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual(['write more', 'be brief']);
  });

  it('replaces the transcript the next model call sees, and the queued messages', async () => {
    const store = memoryStore();
    const steps: ScriptStep[] = [noting(0), { text: 'done' }];
    const kernel = createKernel({ model: scriptedModel(steps), tools: [noteTool(join(directory(), 'n.txt'))], store });
    await kernel.start(['write a note'], { runId: 'source' }).result;
    const model = scriptedModel(steps);
    const forkKernel = createKernel({ model, tools: [noteTool(join(directory(), 'n.txt'))], store });
    const messages = [
      { role: 'system' as const, content: 'You are terse.' },
      { role: 'user' as const, content: 'write a different note', source: 'task' as const },
    ];
    await (await forkKernel.fork('source', { at: { task: 1, turn: 2 }, edit: { messages, pendingMessages: { steering: ['and sign it'] } } })).result;
    expect(model.calls[0]!.messages).toEqual([...messages, { role: 'user', content: 'and sign it', source: 'steering' }]);
  });

  it('a lower maxTurns ends the fork max_turns, counting the turns before the point', async () => {
    const store = memoryStore();
    const file = join(directory(), 'notes.txt');
    const steps: ScriptStep[] = [noting(0), noting(1), noting(2), noting(3), { text: 'done' }];
    const kernel = createKernel({ model: scriptedModel(steps), tools: [noteTool(file)], store, clock: manualClock() });
    const source = await kernel.start(['keep noting'], { runId: 'source' }).result;
    expect(source.stop.reason).toBe('goal_achieved');
    expect(source.tasks[0]!.turnCount).toBe(5);

    const model = scriptedModel(steps);
    const forkFile = join(directory(), 'fork.txt');
    const fork = await (await createKernel({ model, tools: [noteTool(forkFile)], store, clock: manualClock() }).fork('source', { at: { task: 1, turn: 3 }, edit: { bounds: { inner: { maxTurns: 3 } } } })).result;
    expect(fork.stop.reason).toBe('max_turns');
    expect(fork.stop.bound).toMatchObject({ name: 'maxTurns', limit: 3, value: 3 });
    expect(fork.tasks[0]!.turnCount).toBe(3);
    expect(fork.metrics).toMatchObject({ turns: 3, toolCalls: 3, inputTokens: 12, outputTokens: 3 });
    expect(model.calls.map((call) => call.index)).toEqual([2]);
    expect(sideFile(forkFile)).toEqual(['n 2']);
    // The fork's record keeps the edited bounds, so a resume of it keeps them too.
    expect((await store.getRun(fork.runId))?.tasks[0]?.bounds.maxTurns).toBe(3);
    expect((await store.getRun('source'))?.tasks[0]?.bounds.maxTurns).toBe(25);
  });

  it('outer bounds hold across the fork: the workflow counters continue', async () => {
    const store = memoryStore();
    const kernel = createKernel({ model: scriptedModel([{ text: 'one' }, { text: 'two' }, { text: 'three' }, { text: 'four' }]), store });
    await kernel.start(['a', 'b', 'c', 'd'], { runId: 'source' }).result;
    const fork = await (await kernel.fork('source', { at: { task: 3 }, edit: { bounds: { outer: { maxWorkflowSteps: 3 } } } })).result;
    expect(fork.stop.reason).toBe('max_workflow_steps');
    expect(fork.metrics.workflowSteps).toBe(3);
    expect(fork.tasks.map((task) => task.output)).toEqual(['one', 'two', 'three']);
  });

  it('refuses invalid options with one ConfigError naming every bad field, before any side effect', async () => {
    const store = memoryStore();
    const kernel = createKernel({ model: scriptedModel([{ text: 'one' }]), store });
    await kernel.start(['a'], { runId: 'source' }).result;
    const error = await kernel.fork('source', { at: { task: 0, turn: 1.5 }, edit: { message: '', bounds: { inner: { maxTurns: -1 } } }, runId: 'bad id' }).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((issue) => issue.path).sort()).toEqual(['at.task', 'at.turn', 'edit.bounds.inner.maxTurns', 'edit.message', 'runId']);
    const fractional = await kernel.fork('source', { at: { task: 1.5, turn: 2.5 } }).catch((failure: unknown) => failure);
    expect((fractional as ConfigError).issues).toEqual([
      { path: 'at.task', message: 'must be a task number (an integer from 1) or a task id' },
      { path: 'at.turn', message: 'must be a turn number (an integer from 1)' },
    ]);
    const messagesAtTask = await kernel.fork('source', { at: { task: 1 }, edit: { messages: [{ role: 'user', content: 'x' }] } }).catch((failure: unknown) => failure);
    expect((messagesAtTask as ConfigError).issues[0]?.path).toBe('edit.messages');
    const unknown = await kernel.fork('nope', { at: { task: 1 } }).catch((failure: unknown) => failure);
    expect(unknown).toMatchObject({ code: 'run_not_found' });
    const noTask = await kernel.fork('source', { at: { task: 'task-9' } }).catch((failure: unknown) => failure);
    expect(noTask).toMatchObject({ code: 'fork_point_not_found', message: expect.stringContaining('its tasks are 1 (task-1)') });
    const taken = await kernel.fork('source', { at: { task: 1 }, runId: 'source' }).catch((failure: unknown) => failure);
    expect(taken).toMatchObject({ code: 'run_exists' });
    expect((await store.listRuns()).map((run) => run.runId)).toEqual(['source']);
  });
});
