/**
 * Typed outputs beyond the plain loop: the wrap-up answer of a bounded task, and a resume in another
 * kernel and store instance, where the schema comes from the run record alone.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, memoryStore, readCheckpoint, sqliteStore, type CheckpointStore, type Message } from 'dualloop';
import { collectRun, scriptedModel, type ScriptStep } from 'dualloop/testing';
import { waitForEvent } from '../support/kernel-fixtures.js';
import { useTempDir } from '../store/temp-dir.js';
import { INVALID, invalidEvents, repairOf, reportTask, VALID } from './helpers.js';

const search = defineTool({ name: 'search', description: 'searches', parameters: z.object({ q: z.string() }), execute: ({ q }) => `results for ${q}` });
const askedToWrapUp = (messages: readonly Message[]) => messages.at(-1)?.role === 'user' && (messages.at(-1) as { source?: string }).source === 'wrap_up';

describe('typed outputs and wrapUpOnBound', () => {
  const searcher = (wrapUp: string) =>
    scriptedModel(({ index, messages }): ScriptStep => (askedToWrapUp(messages) ? { text: wrapUp } : { toolCalls: [{ name: 'search', args: { q: `q${index}` } }] }));

  it('a wrap-up answer that matches the schema becomes the output; the task keeps its bound stop', async () => {
    const model = searcher(VALID);
    const { result } = await collectRun(createKernel({ model, tools: [search], wrapUpOnBound: true, bounds: { inner: { maxTurns: 2 } } }).start([reportTask()]));
    const task = result.tasks[0]!;

    expect(task.stop.reason).toBe('max_turns');
    expect(task.output).toEqual({ title: 'Q3', count: 3 });
    expect(model.calls[2]!.responseFormat?.name).toBe('report');
    expect(model.calls[2]!.tools).toEqual([]);
  });

  it('a wrap-up answer that does not match leaves no output and is reported', async () => {
    const model = searcher(INVALID);
    const { result, events } = await collectRun(createKernel({ model, tools: [search], wrapUpOnBound: true, bounds: { inner: { maxTurns: 2 } } }).start([reportTask()]));

    expect(result.tasks[0]!.stop.reason).toBe('max_turns');
    expect(result.tasks[0]!.output).toBeUndefined();
    expect(result.tasks[0]!.wrapUp?.assistantText).toBe(INVALID);
    expect(invalidEvents(events)).toMatchObject([{ outcome: 'stopped', wrapUp: true, repairs: 0, issues: [{ path: 'title' }] }]);
  });
});

describe('typed outputs across a resume', () => {
  const directory = useTempDir('dualloop-typed-output-');
  const opened: CheckpointStore[] = [];
  const open = () => {
    const store = sqliteStore({ path: join(directory(), 'runs.db') });
    opened.push(store);
    return store;
  };
  afterEach(async () => {
    for (const store of opened.splice(0)) await (store as { close?: () => unknown }).close?.();
  });

  // Call 0 does not match; call 1 is slow (the run is aborted during it); on resume call 1 does
  // not match again and call 2 would: only a resume that kept the repair count stops before it.
  const script = ({ index }: { index: number }): ScriptStep =>
    index === 0 ? { text: INVALID } : index === 1 ? { text: INVALID, delayMs: 60_000 } : { text: VALID };

  it('continues the repair count and validates with the stored schema, without the caller’s zod schema', async () => {
    const first = createKernel({ model: scriptedModel(script), store: open() });
    const run = first.start([reportTask({ bounds: { maxOutputRepairs: 1 } })], { runId: 'typed-resume' });
    await waitForEvent(run, (event) => event.type === 'message_start' && event.turn === 2);
    run.abort('operator stop');
    expect((await run.result).stop.reason).toBe('context_canceled');

    // Another kernel on another store instance of the same file: the tasks (and the schema) come from the record.
    const resumedModel = scriptedModel(({ index }) => ({ text: index === 1 ? '{"title": null, "count": 3}' : VALID }));
    const resumed = await collectRun(await createKernel({ model: resumedModel, store: open() }).resume('typed-resume'));
    const task = resumed.result.tasks.at(-1)!;

    expect(resumedModel.calls[0]!.index).toBe(1);
    expect(repairOf(resumedModel.calls[0]!.messages)).toContain('repair 1 of 1');
    expect(resumedModel.calls[0]!.responseFormat?.schema).toMatchObject({ type: 'object', required: ['title', 'count'] });
    expect(task.stop.reason).toBe('invalid_output');
    expect(task.stop.detail).toMatch(/after 1 repair \(maxOutputRepairs=1\): title: .*expected string/);
    expect(resumedModel.calls).toHaveLength(1);
  });

  it('a resumed typed task that answers well ends with the parsed output', async () => {
    const first = createKernel({ model: scriptedModel(script), store: open() });
    const run = first.start([reportTask()], { runId: 'typed-resume-ok' });
    await waitForEvent(run, (event) => event.type === 'message_start' && event.turn === 2);
    run.abort('operator stop');
    await run.result;

    const resumed = await (await createKernel({ model: scriptedModel(() => ({ text: VALID })), store: open() }).resume('typed-resume-ok')).result;
    expect(resumed.tasks.at(-1)).toMatchObject({ stop: { reason: 'planner_stopped' }, output: { title: 'Q3', count: 3 } });
  });

  it('checkpoints the repair count in every turn entry (the changes between snapshots too)', async () => {
    const store = memoryStore();
    const answers = [INVALID, INVALID, VALID];
    await createKernel({ model: scriptedModel(answers.map((text) => ({ text }))), store }).start([reportTask()], { runId: 'typed-entries' }).result;

    const entries = store.listCheckpoints('typed-entries');
    expect(entries.map((entry) => entry.kind)).toEqual(['turn', 'turn', 'task']);
    for (const sequence of [1, 2]) {
      const view = await readCheckpoint(store, 'typed-entries', { sequence });
      expect(view?.progress.active?.point.progress.outputRepairs).toBe(sequence);
    }
  });
});
