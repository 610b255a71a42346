import { describe, expect, it } from 'vitest';
import { createKernel, type KernelEvent } from 'dualloop';
import { collectRun, recordingLogger, scriptedModel } from 'dualloop/testing';
import { addTool, countingTool, eventsOfType } from '../support/kernel-fixtures.js';

async function sampleRun() {
  const { tool } = countingTool();
  const model = scriptedModel([
    { toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }, { name: 'step' }], usage: { inputTokens: 5, outputTokens: 5 } },
    { text: 'three', chunks: ['th', 'ree'] },
    { toolCalls: [{ name: 'nope' }] },
    { text: 'done' },
  ]);
  return collectRun(createKernel({ model, tools: [addTool, tool] }).start(['first', 'second']));
}

describe('the event stream', () => {
  it('has strictly increasing seq, workflow_start first and workflow_end last, one runId', async () => {
    const { events, result } = await sampleRun();
    expect(events[0]!.type).toBe('workflow_start');
    expect(events[events.length - 1]!.type).toBe('workflow_end');
    events.forEach((event, index) => {
      expect(event.seq).toBe(index + 1);
      expect(event.runId).toBe(result.runId);
      expect(typeof event.at).toBe('number');
    });
  });

  it('pairs tool start and end by toolCallId', async () => {
    const { events } = await sampleRun();
    const starts = eventsOfType(events, 'tool_execution_start').map((event) => event.toolCallId);
    const ends = eventsOfType(events, 'tool_execution_end').map((event) => event.toolCallId);
    expect(starts).toHaveLength(3);
    expect(new Set(starts)).toEqual(new Set(ends));
    for (const id of starts) {
      const start = events.findIndex((event) => event.type === 'tool_execution_start' && event.toolCallId === id);
      const end = events.findIndex((event) => event.type === 'tool_execution_end' && event.toolCallId === id);
      expect(end).toBeGreaterThan(start);
    }
  });

  it('carries the stop and the counters on task_end and workflow_end', async () => {
    const { events, result } = await sampleRun();
    const taskEnds = eventsOfType(events, 'task_end');
    expect(taskEnds.map((event) => event.stop.reason)).toEqual(['planner_stopped', 'planner_stopped']);
    expect(taskEnds[0]!.counters).toMatchObject({ turns: 2, toolCalls: 2, inputTokens: 5, outputTokens: 5 });
    const end = eventsOfType(events, 'workflow_end')[0]!;
    expect(end.stop).toEqual(result.stop);
    expect(end.metrics).toEqual(result.metrics);
  });

  it('streams text as message_update deltas between message_start and message_end', async () => {
    const { events } = await sampleRun();
    const deltas = eventsOfType(events, 'message_update').map((event) => event.delta);
    expect(deltas).toEqual(['th', 'ree', 'done']);
  });

  it('nests turns inside tasks inside the workflow', async () => {
    const { events } = await sampleRun();
    const shape = events
      .filter((event) => ['task_start', 'task_end', 'turn_start', 'turn_end'].includes(event.type))
      .map((event: KernelEvent) => event.type);
    expect(shape).toEqual(['task_start', 'turn_start', 'turn_end', 'turn_start', 'turn_end', 'task_end', 'task_start', 'turn_start', 'turn_end', 'turn_start', 'turn_end', 'task_end']);
  });
});

describe('the pino logger', () => {
  it('gets one line per event with secrets redacted', async () => {
    const logger = recordingLogger();
    const model = scriptedModel([{ error: 'invalid key sk-live-abcdefghijklmnop1234' }]);
    const { events } = await collectRun(createKernel({ model, logger }).start(['one']));

    expect(logger.lines).toHaveLength(events.length);
    expect(logger.lines.every((line) => line.bindings.runId === events[0]!.runId)).toBe(true);
    expect(logger.text()).not.toContain('sk-live-abcdefghijklmnop1234');
    expect(logger.text()).toContain('[redacted]');
    expect(logger.lines.find((line) => line.message === 'error')?.level).toBe('error');
  });
});

describe('a cancelled model call', () => {
  it('still closes its message: message_end with finishReason canceled, before workflow_end', async () => {
    const { createKernel: create } = await import('dualloop');
    const model = scriptedModel([{ text: 'slow', delayMs: 60_000 }]);
    const run = create({ model }).start(['one']);
    const events: KernelEvent[] = [];
    for await (const event of run) {
      events.push(event);
      if (event.type === 'message_start') run.abort();
    }
    const types = events.map((event) => event.type);
    const end = eventsOfType(events, 'message_end');
    expect(end).toHaveLength(1);
    expect(end[0]!.finishReason).toBe('canceled');
    expect(types.indexOf('message_end')).toBeLessThan(types.indexOf('workflow_end'));
  });
});
