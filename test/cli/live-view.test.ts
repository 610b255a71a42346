import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { calculatorTool, createKernel, DEFAULT_BOUNDS, type Message, type Model } from 'dualloop';
import { collectRun, scriptedModel } from 'dualloop/testing';
import { createLiveView } from '../../src/cli/live-view/live-view.js';
import { pausePoints } from '../viewer/pause-points.js';
import { initialProgress, reduceProgress, runTotals, taskTotal } from '../../src/cli/live-view/progress-model.js';
import { formatStateValue, renderProgress, renderTaskEnd } from '../../src/cli/live-view/render-progress.js';

const plain = pc.createColors(false);

describe('the live view model', () => {
  it('folds a run’s events into the counters the run ends with', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'calculator', args: { expression: '1 + 1' } }], usage: { inputTokens: 30, outputTokens: 5 }, costUsd: 0.001 },
      { text: 'two', usage: { inputTokens: 40, outputTokens: 2 }, costUsd: 0.002 },
      { toolCalls: [{ name: 'calculator', args: { expression: '2 * 3' } }, { name: 'calculator', args: { expression: '2 * 4' } }], usage: { inputTokens: 50, outputTokens: 9 } },
      { text: 'six and eight', usage: { inputTokens: 60, outputTokens: 4 } },
    ]);
    const { events, result } = await collectRun(createKernel({ model, tools: [calculatorTool()] }).start(['add', 'multiply']));
    const states = events.reduce((states, event) => [...states, reduceProgress(states.at(-1)!, event)], [initialProgress()]);
    const whileSecondTaskRuns = states.find((state) => state.running[0]?.index === 1 && state.running[0].totals.toolCalls === 2)!;
    expect(whileSecondTaskRuns).toMatchObject({ tasksDone: 1, running: [{ id: 'task-2', turn: 1, totals: { tokens: 59 } }], done: { toolCalls: 1, tokens: 77 } });
    const final = states.at(-1)!;
    expect(final.stop).toEqual(result.stop);
    expect(final.tasksDone).toBe(2);
    expect(runTotals(final)).toEqual({ toolCalls: 3, tokens: 200, costUsd: result.metrics.costUsd });
  });

  it('counts the tasks of a plan strategy from its plan', async () => {
    const model = scriptedModel([{ text: '1. Add 2 and 3\n2. Report the sum' }, { text: 'five' }, { text: 'the sum is five' }]);
    const { events } = await collectRun(createKernel({ model, strategy: 'plan_execute', goal: 'Add 2 and 3 and report the sum.' }).start());
    let state = initialProgress();
    const totalsAtTaskStart: number[] = [];
    for (const event of events) {
      state = reduceProgress(state, event);
      if (event.type === 'task_start') totalsAtTaskStart.push(taskTotal(state));
    }
    expect(totalsAtTaskStart).toEqual([2, 2]);
    expect(state.tasks.map((task) => task.id)).toEqual(['plan-1-step-1', 'plan-1-step-2']);
  });

  it('renders where the run is against its bounds', () => {
    const description = 'Read receipts.csv and compute the total amount claimed, in EUR.';
    const task = { id: 'total', index: 0, description, startedAt: 0, turn: 2, totals: { toolCalls: 1, tokens: 443, costUsd: 0.0012 }, lastText: '' };
    const progress = {
      ...initialProgress(),
      tasks: [
        { id: 'total', description },
        { id: 'convert', description: 'Convert' },
      ],
      running: [task],
    };
    const text = renderProgress(
      {
        name: 'expense-report',
        runId: 'run-1',
        outerState: formatStateValue('TASK_EXECUTE'),
        branches: [{ task, innerState: formatStateValue('ACT'), bounds: { maxTurns: 6, maxToolCalls: 10, maxRuntimeMs: 60_000, maxTokens: 5_000 }, elapsedMs: 1_250 }],
        graph: false,
        progress,
        outer: { ...DEFAULT_BOUNDS.outer, maxCostUsd: 0.5 },
        sessionElapsedMs: 65_000,
      },
      plain,
    );
    expect(text.split('\n')).toEqual([
      'dualloop expense-report run-1',
      '  state  TASK_EXECUTE › ACT   task 1/2 total "Read receipts.csv and compute the total amount …"',
      '  task   turn 2/6 · tool calls 1/10 · tokens 443/5,000 · cost $0.0012 · time 1.3s/1m00s',
      '  run    tokens 443 · cost $0.0012/$0.5000 · tool calls 1 · elapsed 1m05s/1h00m',
    ]);
  });

  it('renders a task end with its reason, detail, counters and answer', () => {
    const line = renderTaskEnd(
      { id: 'runaway', index: 0, total: 1 },
      { reason: 'max_turns', detail: 'turn 5 reached maxTurns=5', at: 0 },
      { turns: 5, toolCalls: 5, inputTokens: 1_980, outputTokens: 141, costUsd: 0, runtimeMs: 801 },
      plain,
      'Best answer so far:\n397.80',
    );
    expect(line).toBe('■ task 1/1 runaway  max_turns  turn 5 reached maxTurns=5 (5 turns · 5 tool calls · 2,121 tokens · $0.0000 · 801ms)\n  ↳ Best answer so far: 397.80');
  });

  it('writes nested machine states as dotted paths', () => {
    expect(formatStateValue({ TASK_SELECT: 'GATE' })).toBe('TASK_SELECT.GATE');
    expect(formatStateValue('DONE')).toBe('DONE');
  });
});

describe('the live view on a terminal that reports no size', () => {
  it.each([
    ['0 columns', { columns: 0, rows: 0 }],
    ['no size', {}],
  ])('on a terminal of %s: plain lines, no block redrawn in place', async (_, size) => {
    const model = scriptedModel([{ text: 'five' }]);
    const run = createKernel({ model }).start(['Add 2 and 3.']);
    let written = '';
    const stream = { write: (chunk: string) => ((written += chunk), true), isTTY: true, ...size, on: () => stream, off: () => stream, once: () => stream } as unknown as NodeJS.WriteStream;
    const view = createLiveView({ stream, colors: plain, name: 'demo', runId: run.runId, actor: run.actor, tasks: [], outer: DEFAULT_BOUNDS.outer, refreshMs: 1 });
    for await (const event of run) view.onEvent(event);
    view.note('a note');
    view.finish(await run.result);
    expect(written).not.toContain('\u001b');
    expect(written.split('\n')).toEqual([
      `dualloop demo ${run.runId}`,
      expect.stringMatching(/^✓ task 1\/1 task-1 {2}planner_stopped {2}the model answered without tool calls \(1 turn · /),
      '  ↳ five',
      'a note',
      expect.stringMatching(/^✓ workflow {2}goal_achieved {2}/),
      expect.stringMatching(/^ {2}1 task · 1 turn · /),
      '',
    ]);
  });
});

describe('the live view while a task compacts or wraps up', () => {
  it('shows COMPACT while the compactor runs and WRAP_UP during the wrap-up call, from the actors’ snapshots', async () => {
    const pauses = pausePoints();
    const wrapUpAsked = (messages: readonly Message[]) => {
      const last = messages.at(-1);
      return last?.role === 'user' && last.source === 'wrap_up';
    };
    const model: Model = {
      provider: 'test',
      modelId: 'pausing',
      async call({ messages }) {
        const usage = { inputTokens: 1, outputTokens: 1 };
        if (!wrapUpAsked(messages)) return { type: 'response', text: '', toolCalls: [{ id: `c${messages.length}`, name: 'calculator', args: { expression: '1 + 1' } }], usage, costUsd: 0, finishReason: 'tool_calls' };
        await pauses.enter('wrap-up');
        return { type: 'response', text: 'best so far', toolCalls: [], usage, costUsd: 0, finishReason: 'stop' };
      },
    };
    const compactor = { shouldCompact: (_messages: readonly Message[], { turn }: { turn: number }) => turn === 2, compact: (messages: readonly Message[]) => pauses.enter('compactor').then(() => messages) };
    const tasks = ['keep calculating'];
    const run = createKernel({ model, tools: [calculatorTool()], compactor, wrapUpOnBound: true, bounds: { inner: { maxTurns: 2 } } }).start(tasks);
    let written = '';
    const stream = { write: (chunk: string) => ((written += chunk), true), columns: 120, rows: 40, isTTY: false, on: () => stream, off: () => stream, once: () => stream } as unknown as NodeJS.WriteStream;
    const view = createLiveView({
      stream,
      colors: plain,
      name: 'demo',
      runId: run.runId,
      actor: run.actor,
      tasks: [{ id: 'task-1', index: 0, description: tasks[0]!, bounds: { ...DEFAULT_BOUNDS.inner, maxTurns: 2 } }],
      outer: DEFAULT_BOUNDS.outer,
      refreshMs: 3_600_000,
    });
    const consumed = (async () => {
      for await (const event of run) view.onEvent(event);
    })();
    const seen: string[] = [];
    for (const expected of ['compactor', 'wrap-up']) {
      expect(await pauses.next()).toBe(expected);
      written = '';
      view.note(`paused at the ${expected}`);
      seen.push(/state {2}(\S+ › \S+)/.exec(written)?.[1] ?? written);
      pauses.release();
    }
    const result = await run.result;
    await consumed;
    view.finish(result);
    expect(seen).toEqual(['TASK_EXECUTE › COMPACT', 'TASK_EXECUTE › WRAP_UP']);
    expect(result.tasks[0]?.wrapUp?.finishReason).toBe('stop');
  });
});
