import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, sqliteStore, type CheckpointStore, type Compactor, type ErrorScope, type KernelEvent, type KernelOptions } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { runCli } from '../cli/cli-process.js';
import { useWorkspace } from '../cli/workspace.js';

/**
 * Fault injection over every injectable part: a throw in any of them that ends the run `error`
 * is explained by exactly one `error` event naming the part, carrying the cause, emitted before
 * the `task_end`/`workflow_end` that report the stop; and `dualloop audit` prints it.
 */

const workspace = useWorkspace();

function boom(cause: string): () => never {
  return () => {
    throw new Error(cause);
  };
}

const stepTool = defineTool({ name: 'step', description: 'One step.', parameters: z.object({}), execute: () => 'stepped' });

/** Each task: a tool call (so a turn checkpoint is written), then a text answer on turn 2. */
function twoTurnModel() {
  return scriptedModel(({ index }) => (index % 2 === 0 ? { toolCalls: [{ name: 'step', args: {} }] } : { text: 'done' }));
}

/** The store with `method` replaced; `fail` decides per call whether it throws. */
function failing<K extends keyof CheckpointStore>(base: CheckpointStore, method: K, replacement: CheckpointStore[K]): CheckpointStore {
  return { ...base, [method]: replacement };
}

interface FaultCase {
  readonly part: string;
  readonly scope: ErrorScope;
  readonly cause: string;
  readonly options: (store: CheckpointStore) => Partial<KernelOptions>;
}

const throwingLogger = () => {
  const logger = { child: () => logger, debug() {}, info: boom('logger exploded'), warn() {}, error() {} };
  return logger;
};

const FAULTS: readonly FaultCase[] = [
  { part: 'model', scope: 'model', cause: 'model exploded', options: () => ({ model: { provider: 'test', modelId: 'exploding', call: boom('model exploded') } }) },
  { part: 'policy gate (task)', scope: 'policy', cause: 'task gate exploded', options: () => ({ policy: { checkTask: boom('task gate exploded') } }) },
  { part: 'policy gate (tool call)', scope: 'policy', cause: 'tool gate exploded', options: () => ({ policy: { checkToolCall: boom('tool gate exploded') } }) },
  { part: 'inner stop evaluator', scope: 'stop_evaluator', cause: 'inner exploded', options: () => ({ stopEvaluators: { inner: [boom('inner exploded')] } }) },
  { part: 'outer stop evaluator', scope: 'stop_evaluator', cause: 'outer exploded', options: () => ({ stopEvaluators: { outer: [boom('outer exploded')] } }) },
  { part: 'shouldStopAfterTurn', scope: 'stop_evaluator', cause: 'should-stop exploded', options: () => ({ shouldStopAfterTurn: boom('should-stop exploded') }) },
  {
    part: 'compactor',
    scope: 'compactor',
    cause: 'summariser down',
    options: () => ({ compactor: { shouldCompact: (_messages, { turn }) => turn === 2, compact: boom('summariser down') } }),
  },
  {
    part: 'task checkpoint (store.saveCheckpoint)',
    scope: 'checkpoint',
    cause: 'disk full',
    options: (store) => ({
      store: failing(store, 'saveCheckpoint', (entry) => {
        if (entry.kind === 'task') throw new Error('disk full');
        return store.saveCheckpoint(entry);
      }),
    }),
  },
  {
    part: 'task checkpoint (asynchronous store)',
    scope: 'checkpoint',
    cause: 'network down',
    options: (store) => ({
      store: failing(store, 'saveCheckpoint', async (entry) => {
        if (entry.kind === 'task') throw new Error('network down');
        return store.saveCheckpoint(entry);
      }),
    }),
  },
  { part: 'every checkpoint (turn and task)', scope: 'checkpoint', cause: 'read-only store', options: (store) => ({ store: failing(store, 'saveCheckpoint', boom('read-only store')) }) },
  {
    part: 'store append (the event log)',
    scope: 'store',
    cause: 'log append refused',
    options: (store) => {
      let appended = 0;
      return {
        store: failing(store, 'appendEvent', (event) => {
          appended += 1;
          if (appended === 5) throw new Error('log append refused');
          return store.appendEvent(event);
        }),
      };
    },
  },
  { part: 'store (tool result record)', scope: 'store', cause: 'record refused', options: (store) => ({ store: failing(store, 'recordToolResult', boom('record refused')) }) },
  { part: 'beforeToolCall', scope: 'hook', cause: 'before exploded', options: () => ({ beforeToolCall: boom('before exploded') }) },
  { part: 'afterToolCall', scope: 'hook', cause: 'after exploded', options: () => ({ afterToolCall: boom('after exploded') }) },
  { part: 'transformContext', scope: 'hook', cause: 'transform exploded', options: () => ({ transformContext: boom('transform exploded') }) },
  { part: 'event listener (logger)', scope: 'listener', cause: 'logger exploded', options: () => ({ logger: throwingLogger() }) },
  { part: 'event listener (inspect observer)', scope: 'listener', cause: 'inspect exploded', options: () => ({ inspect: boom('inspect exploded') }) },
];

async function runWithFault(fault: FaultCase, dir: string) {
  const path = join(dir, 'runs.db');
  const store = sqliteStore({ path });
  const run = createKernel({ model: twoTurnModel(), tools: [stepTool], store, ...fault.options(store) }).start(['first task', 'second task']);
  const events: KernelEvent[] = [];
  for await (const event of run) events.push(event);
  const result = await run.result;
  await store.close?.();
  return { result, events, path };
}

describe('every error end is explained by one error event', () => {
  it.each(FAULTS)('$part: one error event (scope $scope) with the cause, before the ends, printed by dualloop audit', async (fault) => {
    const { dir } = workspace();
    const { result, events, path } = await runWithFault(fault, dir);

    expect(result.stop.reason).toBe('error');
    expect(result.stop.detail).toContain(fault.cause);
    const errors = events.filter((event): event is Extract<KernelEvent, { type: 'error' }> => event.type === 'error');
    expect(errors.map((event) => event.scope)).toEqual([fault.scope]);
    expect(errors[0]!.message).toContain(fault.cause);
    // Typed errors (ADR/0170): the event and the stop carry the failed part's code.
    expect(errors[0]!.code).toBe(`${fault.scope === 'store' ? 'store_call' : fault.scope === 'internal' ? 'internal' : fault.scope}_${fault.scope === 'internal' ? 'error' : 'failed'}`);
    expect(result.stop.code).toBe(errors[0]!.code);
    const ends = events.filter((event) => (event.type === 'task_end' || event.type === 'workflow_end') && event.stop.reason === 'error');
    expect(ends.map((event) => event.type)).toContain('workflow_end');
    for (const end of ends) expect(errors[0]!.seq).toBeLessThan(end.seq);

    const audit = await runCli(['audit', result.runId, '--store', path], { cwd: dir });
    expect(audit.stderr).toBe('');
    expect(audit.stdout).toMatch(new RegExp(`^errors\\n {2}${fault.scope}\\s+.*${fault.cause}`, 'm'));
  });
});

describe('a compactor that returns no transcript is named like one that throws', () => {
  const GARBAGE: readonly { readonly label: string; readonly compact: () => unknown }[] = [
    { label: 'a number', compact: () => 42 },
    { label: 'undefined', compact: () => undefined },
    { label: 'a string, asynchronously', compact: async () => 'summary' },
    { label: 'a list holding a non-message', compact: () => [{ role: 'user', content: 'hi' }, { role: 'narrator', text: 'x' }] },
  ];
  it.each(GARBAGE)('compact returns $label: one compactor error event, the run ends error, dualloop audit prints it', async ({ compact }) => {
    const { dir } = workspace();
    const fault: FaultCase = {
      part: 'compactor',
      scope: 'compactor',
      cause: 'compact returned no list of messages',
      options: () => ({ compactor: { shouldCompact: (_messages, { turn }) => turn === 2, compact: compact as Compactor['compact'] } }),
    };
    const { result, events, path } = await runWithFault(fault, dir);

    expect(result.stop).toMatchObject({ reason: 'error', code: 'compactor_failed' });
    expect(result.stop.detail).toContain(fault.cause);
    const errors = events.filter((event): event is Extract<KernelEvent, { type: 'error' }> => event.type === 'error');
    expect(errors.map((event) => [event.scope, event.code])).toEqual([['compactor', 'compactor_failed']]);
    expect(errors[0]!.message).toContain(fault.cause);
    const audit = await runCli(['audit', result.runId, '--store', path], { cwd: dir });
    expect(audit.stdout).toMatch(/^errors\n {2}compactor\s+.*compact returned no list of messages/m);
    expect(errors[0]!.message).not.toContain('compact threw');
  });

  it('a throwing compactor is named once: "compact threw: " and its message', async () => {
    const { dir } = workspace();
    const fault = FAULTS.find((candidate) => candidate.part === 'compactor')!;
    const { result, events } = await runWithFault(fault, dir);

    const errors = events.filter((event): event is Extract<KernelEvent, { type: 'error' }> => event.type === 'error');
    expect(errors.map((event) => event.message)).toEqual(['compact threw: summariser down']);
    expect(result.stop.detail.match(/compact threw/g)).toHaveLength(1);
  });
});

describe('failures that are data, not error ends', () => {
  it('a throwing tool is an error tool result the model sees; the run goes on', async () => {
    const tool = defineTool({ name: 'step', description: 'One step.', parameters: z.object({}), execute: boom('tool exploded') });
    const model = twoTurnModel();
    const run = createKernel({ model, tools: [tool] }).start(['the task']);
    const events: KernelEvent[] = [];
    for await (const event of run) events.push(event);
    expect((await run.result).stop.reason).toBe('goal_achieved');
    expect(events.filter((event) => event.type === 'error')).toEqual([]);
    expect(events.find((event) => event.type === 'tool_execution_end')).toMatchObject({ isError: true, result: expect.stringContaining('tool exploded') });
  });

  it('a throwing ephemeralMessages is a warning; a throwing shouldCompact is an error event without an error end', async () => {
    const run = createKernel({
      model: twoTurnModel(),
      tools: [stepTool],
      ephemeralMessages: boom('ephemeral exploded'),
      compactor: { shouldCompact: boom('should-compact exploded'), compact: (messages) => messages },
    }).start(['the task']);
    const events: KernelEvent[] = [];
    for await (const event of run) events.push(event);
    expect((await run.result).stop.reason).toBe('goal_achieved');
    expect(events.filter((event) => event.type === 'warning').map((event) => event.message).join('\n')).toContain('ephemeral exploded');
    const errors = events.filter((event) => event.type === 'error');
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((event) => event.scope === 'compactor' && event.message.includes('should-compact exploded'))).toBe(true);
  });
});
