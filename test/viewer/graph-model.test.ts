import { describe, expect, it } from 'vitest';
import { createKernel, memoryStore, type KernelEvent } from 'dualloop';
import { scriptedModel, type ScriptStep } from 'dualloop/testing';
import { gaugesFor } from '../../src/viewer/model/gauges.js';
import { laneFraction, timelineLanes } from '../../src/viewer/model/lanes.js';
import { INITIAL_PROGRESS, reduceProgress } from '../../src/viewer/model/run-progress.js';
import { taskGraphAt, taskGraphShape } from '../../src/viewer/model/task-graph.js';
import { branchGate, taskOf, turnOf } from '../support/graph-fixtures.js';

const TASKS = [
  { id: 'left', description: 'look left', dependsOn: [] },
  { id: 'right', description: 'look right', dependsOn: [] },
  { id: 'merge', description: 'merge', dependsOn: ['left', 'right'] },
];

/** left and right run at once (each calls a tool in its first turn, 10 tokens a call), then merge. */
async function graphRun() {
  const store = memoryStore();
  // Each branch's tool call returns once both have started: the two surely overlap.
  const lookup = branchGate('lookup');
  void lookup.allIn.then(lookup.open);
  const model = scriptedModel((call): ScriptStep => {
    const usage = { inputTokens: 8, outputTokens: 2 };
    return taskOf(call) !== 'merge' && turnOf(call) === 0 ? { toolCalls: [{ name: 'lookup' }], usage } : { text: `${taskOf(call)} done`, usage };
  });
  const kernel = createKernel({ model, store, tools: [lookup.tool], bounds: { outer: { maxParallelTasks: 2 } } });
  const result = await kernel.start(TASKS, { runId: 'graph' }).result;
  const record = (await store.getRun('graph'))!;
  return { store, kernel, result, record, events: await store.readEvents('graph') };
}

const positionOf = (events: readonly KernelEvent[], found: (event: KernelEvent) => boolean) => events.findIndex(found);

describe('the task graph, folded from events', () => {
  it('shows each task with its dependencies: both branches running with their own turn states, then every stop', async () => {
    const { events, record } = await graphRun();
    expect(taskGraphShape(record.tasks)).toEqual({
      tasks: ['left', 'right', 'merge'],
      edges: [
        { source: 'left', target: 'merge' },
        { source: 'right', target: 'merge' },
      ],
    });
    // Both tools started: the two branches are in ACT at once, merge waits.
    const bothActing = positionOf(events, (event) => event.type === 'tool_execution_start' && event.taskId === 'right') + 1;
    const during = taskGraphAt(record.tasks, events, bothActing)!;
    expect(during.nodes.map((node) => [node.taskId, node.state, node.turnState, node.turn])).toEqual([
      ['left', 'running', 'ACT', 1],
      ['right', 'running', 'ACT', 1],
      ['merge', 'waiting', undefined, 0],
    ]);
    const end = taskGraphAt(record.tasks, events, events.length)!;
    expect(end.nodes.map((node) => [node.taskId, node.state, node.stop?.reason, node.dependsOn])).toEqual([
      ['left', 'ended', 'planner_stopped', []],
      ['right', 'ended', 'planner_stopped', []],
      ['merge', 'ended', 'planner_stopped', ['left', 'right']],
    ]);
    // At the start nothing ran yet.
    expect(taskGraphAt(record.tasks, events, 1)!.nodes.map((node) => node.state)).toEqual(['waiting', 'waiting', 'waiting']);
  });

  it('gives a list no task graph', async () => {
    const store = memoryStore();
    await createKernel({ model: scriptedModel([{ text: 'one' }, { text: 'two' }]), store }).start(['one', 'two'], { runId: 'list' }).result;
    const record = (await store.getRun('list'))!;
    expect(taskGraphShape(record.tasks)).toBeUndefined();
    expect(taskGraphAt(record.tasks, await store.readEvents('list'), 3)).toBeUndefined();
  });

  it('shows a graph fork’s tasks taken from the source as kept, the others as they run', async () => {
    const { store, kernel } = await graphRun();
    await (await kernel.fork('graph', { at: { task: 'right' }, runId: 'fork' })).result;
    const record = (await store.getRun('fork'))!;
    const events = await store.readEvents('fork');
    expect(taskGraphAt(record.tasks, events, 1)!.nodes.map((node) => [node.taskId, node.state])).toEqual([
      ['left', 'kept'],
      ['right', 'waiting'],
      ['merge', 'waiting'],
    ]);
    expect(taskGraphAt(record.tasks, events, events.length)!.nodes.map((node) => [node.taskId, node.state])).toEqual([
      ['left', 'kept'],
      ['right', 'ended'],
      ['merge', 'ended'],
    ]);
  });

  it('puts a fan-out task’s items under it: running while an item runs, ended with its own end', () => {
    const bounds = { maxTurns: 5, maxToolCalls: 5, maxRuntimeMs: 1_000 };
    const tasks = [
      { id: 'list', index: 0, description: 'list', bounds },
      { id: 'read', index: 1, description: 'read {{item}}', bounds, forEach: 'list.output.files' },
    ];
    const stamp = (seq: number) => ({ runId: 'r', seq, at: seq });
    const stop = { reason: 'planner_stopped' as const, detail: 'done', at: 0 };
    const counters = { turns: 1, toolCalls: 0, inputTokens: 1, outputTokens: 1, costUsd: 0, runtimeMs: 1 };
    const events: KernelEvent[] = [
      { type: 'workflow_start', tasks, resumed: false, ...stamp(1) },
      { type: 'task_start', taskId: 'list', taskIndex: 0, description: 'list', ...stamp(2) },
      { type: 'task_end', taskId: 'list', taskIndex: 0, stop, counters, ...stamp(3) },
      { type: 'task_start', taskId: 'read[0]', taskIndex: 1, description: 'read a', ...stamp(4) },
      { type: 'task_start', taskId: 'read[1]', taskIndex: 1, description: 'read b', ...stamp(5) },
      { type: 'task_end', taskId: 'read[0]', taskIndex: 1, stop, counters, ...stamp(6) },
      { type: 'task_end', taskId: 'read[1]', taskIndex: 1, stop, counters, ...stamp(7) },
      { type: 'task_start', taskId: 'read', taskIndex: 1, description: 'read {{item}}', ...stamp(8) },
      { type: 'task_end', taskId: 'read', taskIndex: 1, stop: { ...stop, reason: 'goal_achieved' }, counters, ...stamp(9) },
    ];
    const read = (count: number) => taskGraphAt(tasks, events, count)!.nodes[1]!;
    expect(read(3)).toMatchObject({ state: 'waiting', dependsOn: ['list'], items: [] });
    expect(read(6)).toMatchObject({ state: 'running', items: [{ taskId: 'read[0]', state: 'ended' }, { taskId: 'read[1]', state: 'running' }] });
    expect(read(9)).toMatchObject({ state: 'ended', stop: { reason: 'goal_achieved' } });
    expect(timelineLanes(events, 9).lanes.map((lane) => lane.taskId)).toEqual(['list', 'read[0]', 'read[1]', 'read']);
  });
});

describe('the lanes of a graph run', () => {
  it('give each branch a lane; the two that ran at once overlap, the one that waited starts after both ended', async () => {
    const { events } = await graphRun();
    const lanes = timelineLanes(events, events.length);
    expect(lanes.lanes.map((lane) => lane.taskId)).toEqual(['left', 'right', 'merge']);
    const [left, right, merge] = lanes.lanes.map((lane) => lane.spans[0]!);
    expect(left!.from).toBeLessThan(right!.to);
    expect(right!.from).toBeLessThan(left!.to);
    expect(merge!.from).toBeGreaterThanOrEqual(Math.max(left!.to, right!.to));
    expect([left, right, merge].map((span) => span!.stop?.reason)).toEqual(['planner_stopped', 'planner_stopped', 'planner_stopped']);
    expect(lanes.lanes[0]!.marks.map((mark) => [mark.kind, mark.label])).toEqual([
      ['turn', 'turn 1'],
      ['tool', 'lookup'],
      ['turn', 'turn 2'],
    ]);
    expect(laneFraction(lanes, lanes.from)).toBe(0);
    expect(laneFraction(lanes, lanes.to)).toBe(1);
  });

  it('draw a branch that still runs up to the cursor, on the scale of the whole run', async () => {
    const { events } = await graphRun();
    const cursor = positionOf(events, (event) => event.type === 'tool_execution_start' && event.taskId === 'right') + 1;
    const lanes = timelineLanes(events, cursor);
    expect(lanes.to).toBe(events.at(-1)!.at);
    expect(lanes.cursorAt).toBe(events[cursor - 1]!.at);
    expect(lanes.lanes.map((lane) => [lane.taskId, lane.spans[0]!.to, lane.spans[0]!.endPosition])).toEqual([
      ['left', lanes.cursorAt, undefined],
      ['right', lanes.cursorAt, undefined],
    ]);
  });
});

describe('the run gauges of a graph run', () => {
  it('count every running branch’s spending, not only the latest task’s', async () => {
    const { events, record } = await graphRun();
    const cursor = positionOf(events, (event) => event.type === 'tool_execution_start' && event.taskId === 'right') + 1;
    const progress = events.slice(0, cursor).reduce(reduceProgress, INITIAL_PROGRESS);
    expect(progress.running.map((task) => task.taskId)).toEqual(['left', 'right']);
    const info = { runId: 'graph', name: undefined, createdAt: record.createdAt, tasks: record.tasks, bounds: undefined };
    // Two model calls answered, one per branch, 10 tokens each.
    expect(gaugesFor(progress, info, events[cursor - 1]!.at).find((gauge) => gauge.id === 'runTokens')?.value).toBe(20);
  });
});
