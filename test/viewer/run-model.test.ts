import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createKernel, defineTool, memoryStore, type KernelEvent } from 'dualloop';
import { manualClock, scriptedModel } from 'dualloop/testing';
import { formatDuration, gaugesFor, type Gauge } from '../../src/viewer/model/gauges.js';
import { INITIAL_PROGRESS, reduceProgress } from '../../src/viewer/model/run-progress.js';
import { timelineRows } from '../../src/viewer/model/timeline.js';
import type { RunInfo } from '../../src/viewer/protocol.js';

const BOUNDS = { inner: { maxTurns: 4, maxToolCalls: 6, maxRuntimeMs: 60_000, maxTokens: 1_000 }, outer: { maxWorkflowSteps: 5, maxSessionRuntimeMs: 600_000, maxTokens: 5_000, maxCostUsd: 2, maxReplans: 3 } };

async function recordedRun() {
  const clock = manualClock();
  const store = memoryStore();
  const lookup = defineTool({ name: 'lookup', description: 'Looks up.', parameters: z.object({ key: z.string() }), execute: ({ key }) => ({ value: key.toUpperCase() }) });
  const kernel = createKernel({
    model: scriptedModel([
      { toolCalls: [{ name: 'lookup', args: { key: 'a' } }], usage: { inputTokens: 100, outputTokens: 10 }, costUsd: 0.01, chunks: ['x', 'y'] },
      { text: 'A', usage: { inputTokens: 120, outputTokens: 5 }, costUsd: 0.02 },
      { text: 'B', usage: { inputTokens: 50, outputTokens: 5 }, costUsd: 0.005 },
    ]),
    tools: [lookup],
    store,
    clock,
    bounds: BOUNDS,
  });
  const result = await kernel.start([{ id: 'one', description: 'first' }, { id: 'two', description: 'second' }], { runId: 'model-run' }).result;
  const events = await store.readEvents('model-run');
  const record = await store.getRun('model-run');
  const info: RunInfo = { runId: 'model-run', name: undefined, createdAt: record!.createdAt, tasks: record!.tasks, bounds: { ...BOUNDS } };
  return { events, result, info };
}

const gauge = (gauges: readonly Gauge[], id: Gauge['id']) => gauges.find((entry) => entry.id === id)!;
const progressAt = (events: readonly KernelEvent[], count: number) => events.slice(0, count).reduce(reduceProgress, INITIAL_PROGRESS);

describe('gauges', () => {
  it('count the running task against its inner bounds and the run against the outer ones', async () => {
    const { events, info } = await recordedRun();
    const afterTool = events.findIndex((event) => event.type === 'tool_execution_end') + 1;
    const gauges = gaugesFor(progressAt(events, afterTool), info, events[afterTool - 1]!.at);
    expect(gauge(gauges, 'turns')).toMatchObject({ value: 1, limit: 4 });
    expect(gauge(gauges, 'toolCalls')).toMatchObject({ value: 1, limit: 6 });
    expect(gauge(gauges, 'taskTokens')).toMatchObject({ value: 110, limit: 1_000 });
    expect(gauge(gauges, 'taskCost')).toMatchObject({ value: 0.01, limit: undefined });
    expect(gauge(gauges, 'steps')).toMatchObject({ value: 0, limit: 5 });
    expect(gauge(gauges, 'runTokens')).toMatchObject({ value: 110, limit: 5_000 });
    expect(gauge(gauges, 'runCost')).toMatchObject({ value: 0.01, limit: 2 });
    expect(gauge(gauges, 'sessionRuntime')).toMatchObject({ limit: 600_000 });
  });

  it('end on the run’s metrics', async () => {
    const { events, info, result } = await recordedRun();
    const gauges = gaugesFor(progressAt(events, events.length), info, events.at(-1)!.at);
    expect(gauge(gauges, 'steps').value).toBe(result.metrics.workflowSteps);
    expect(gauge(gauges, 'runTokens').value).toBe(result.metrics.inputTokens + result.metrics.outputTokens);
    expect(gauge(gauges, 'runCost').value).toBeCloseTo(result.metrics.costUsd);
    expect(gauge(gauges, 'turns')).toMatchObject({ value: result.tasks[1]!.turnCount });
  });

  it('let a running task’s runtime grow with the clock, and have no limit for an unset bound', async () => {
    const { events, info } = await recordedRun();
    const taskStart = events.findIndex((event) => event.type === 'task_start') + 1;
    const start = events[taskStart - 1]!.at;
    const gauges = gaugesFor(progressAt(events, taskStart), { ...info, bounds: undefined, tasks: [] }, start + 1_500);
    expect(gauge(gauges, 'taskRuntime')).toMatchObject({ value: 1_500, limit: undefined });
    expect(gauge(gauges, 'turns').limit).toBeUndefined();
    expect(formatDuration(1_500)).toBe('1.5 s');
  });
});

describe('timeline', () => {
  it('hides streaming deltas and shows each tool call with its arguments and result', async () => {
    const { events } = await recordedRun();
    expect(events.some((event) => event.type === 'message_update')).toBe(true);
    const rows = timelineRows(events);
    expect(rows.some((row) => row.type === 'message_update')).toBe(false);
    const end = rows.find((row) => row.type === 'tool_execution_end')!;
    expect(end.summary).toMatch(/^lookup done in \d+ ms$/);
    expect(end.details).toEqual([
      { label: 'arguments', value: { key: 'a' } },
      { label: 'result', value: { value: 'A' } },
    ]);
    expect(rows.find((row) => row.type === 'task_end')).toMatchObject({ tone: 'stop', taskId: 'one', summary: expect.stringContaining('one planner_stopped') });
    expect(rows.map((row) => row.position)).toEqual([...rows.map((row) => row.position)].sort((left, right) => left - right));
  });

  it('shows a typed answer that did not match, with its issues', async () => {
    const model = scriptedModel([{ text: '{"n": "x"}' }, { text: '{"n": 1}' }]);
    const run = createKernel({ model }).start([{ id: 'n', description: 'A number.', output: z.object({ n: z.number() }) }]);
    const events: KernelEvent[] = [];
    for await (const event of run) events.push(event);
    const row = timelineRows(events).find((candidate) => candidate.type === 'output_invalid');
    expect(row).toMatchObject({ tone: 'plain', summary: 'answer did not match the output schema: sent back (repair 1)' });
    expect(row?.details).toEqual([{ label: 'issues', value: [{ path: 'n', message: 'Invalid input: expected number, received string' }] }]);
  });
});
