import xterm from '@xterm/headless';
import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { createKernel, DEFAULT_BOUNDS, type KernelEvent } from 'dualloop';
import { scriptedModel, type ScriptStep } from 'dualloop/testing';
import { createLiveView } from '../../src/cli/live-view/live-view.js';
import { initialProgress, reduceProgress, runTotals } from '../../src/cli/live-view/progress-model.js';
import { branchGate, taskOf, turnOf } from '../support/graph-fixtures.js';

const plain = pc.createColors(false);
const COLUMNS = 140;
const ROWS = 30;

/** A stream the live view takes for a terminal of COLUMNS x ROWS, every byte applied by a headless xterm.js. */
function terminalStream() {
  const terminal = new xterm.Terminal({ cols: COLUMNS, rows: ROWS, scrollback: 1_000, convertEol: true, allowProposedApi: true });
  let parsed: Promise<void> = Promise.resolve();
  const stream = {
    write: (chunk: string) => {
      parsed = new Promise((resolve) => terminal.write(chunk, resolve));
      return true;
    },
    columns: COLUMNS,
    rows: ROWS,
    isTTY: true,
    on: () => stream,
    off: () => stream,
    once: () => stream,
  } as unknown as NodeJS.WriteStream;
  const screen = async () => {
    await parsed;
    const buffer = terminal.buffer.active;
    const lines: string[] = [];
    for (let row = 0; row < buffer.length; row += 1) lines.push(buffer.getLine(row)?.translateToString(true) ?? '');
    while (lines.at(-1) === '') lines.pop();
    return lines;
  };
  return { stream, screen };
}

describe('the live view of a graph run', () => {
  it('gives every running branch a line with its own turn machine’s state and counters, and each ended task its own answer', async () => {
    const wait = branchGate('wait');
    const model = scriptedModel((call): ScriptStep => {
      const usage = { inputTokens: taskOf(call) === 'look left' ? 100 : 200, outputTokens: 10 };
      return turnOf(call) === 0 ? { toolCalls: [{ name: 'wait' }], usage } : { text: `${taskOf(call)}: done`, usage };
    });
    const tasks = [
      { id: 'left', description: 'look left', dependsOn: [] },
      { id: 'right', description: 'look right', dependsOn: [] },
      { id: 'merge', description: 'merge both', dependsOn: ['left', 'right'] },
    ];
    const bounds = { ...DEFAULT_BOUNDS.inner, maxTurns: 4, maxToolCalls: 50 };
    const run = createKernel({ model, tools: [wait.tool], bounds: { inner: bounds, outer: { maxParallelTasks: 2 } } }).start(tasks, { runId: 'graph-view' });
    const { stream, screen } = terminalStream();
    const specs = tasks.map((task, index) => ({ ...task, index, bounds }));
    const view = createLiveView({ stream, colors: plain, name: 'demo', runId: run.runId, actor: run.actor, tasks: specs, outer: DEFAULT_BOUNDS.outer, refreshMs: 3_600_000 });
    let waiting = 0;
    const bothWaiting = new Promise<void>((resolve) => {
      void (async () => {
        for await (const event of run) {
          view.onEvent(event);
          if (event.type === 'tool_execution_start' && (waiting += 1) === 2) resolve();
        }
      })();
    });
    await bothWaiting;
    view.note('both branches wait');
    const block = await screen();
    expect(block.slice(-5)).toEqual([
      'dualloop demo graph-view',
      '  state  TASK_EXECUTE   tasks 0/3 done · 2 running',
      expect.stringMatching(/^ {2}task {3}1\/3 left › ACT {3}turn 1\/4 · tool calls 0\/50 · tokens 110 · cost \$0\.0000 · time \d+ms\/10m00s$/),
      expect.stringMatching(/^ {2}task {3}2\/3 right › ACT {3}turn 1\/4 · tool calls 0\/50 · tokens 210 · cost \$0\.0000 · time \d+ms\/10m00s$/),
      expect.stringMatching(/^ {2}run {4}tokens 320 · cost \$0\.0000 · tool calls 0 · elapsed \d+ms\/1h00m$/),
    ]);
    wait.open();
    const result = await run.result;
    view.finish(result);
    const final = await screen();
    expect(final.filter((line) => line.startsWith('  state  '))).toEqual([]);
    // Each task's answer is its own, though the two ran at once.
    expect(final.join('\n')).toMatch(/✓ task 1\/3 left {2}planner_stopped .*\n {2}↳ look left: done\n/);
    expect(final.join('\n')).toMatch(/✓ task 2\/3 right {2}planner_stopped .*\n {2}↳ look right: done\n/);
    expect(final.join('\n')).toMatch(/✓ task 3\/3 merge {2}planner_stopped .*\n {2}↳ merge both: done\n/);
    expect(final).toContainEqual(expect.stringMatching(/^✓ workflow {2}goal_achieved {2}all 3 tasks finished$/));
  });

  it('counts a fan-out task’s items once: its own end sums what its items already added', () => {
    const at = { runId: 'r', at: 0 };
    const counters = (tokens: number) => ({ turns: 1, toolCalls: 1, inputTokens: tokens, outputTokens: 0, costUsd: 0, runtimeMs: 1 });
    const stop = { reason: 'planner_stopped' as const, detail: 'done', at: 0 };
    const events: KernelEvent[] = [
      { type: 'workflow_start', tasks: [{ id: 'list', description: 'list' }, { id: 'read', description: 'read {{item}}' }], resumed: false, seq: 1, ...at },
      { type: 'task_start', taskId: 'list', taskIndex: 0, description: 'list', seq: 2, ...at },
      { type: 'task_end', taskId: 'list', taskIndex: 0, stop, counters: counters(5), seq: 3, ...at },
      { type: 'task_start', taskId: 'read[0]', taskIndex: 1, description: 'read a', seq: 4, ...at },
      { type: 'task_start', taskId: 'read[1]', taskIndex: 1, description: 'read b', seq: 5, ...at },
      { type: 'task_end', taskId: 'read[1]', taskIndex: 1, stop, counters: counters(20), seq: 6, ...at },
      { type: 'task_end', taskId: 'read[0]', taskIndex: 1, stop, counters: counters(10), seq: 7, ...at },
      { type: 'task_start', taskId: 'read', taskIndex: 1, description: 'read {{item}}', seq: 8, ...at },
      { type: 'task_end', taskId: 'read', taskIndex: 1, stop: { ...stop, reason: 'goal_achieved' }, counters: counters(30), seq: 9, ...at },
    ];
    const states = events.reduce((states, event) => [...states, reduceProgress(states.at(-1)!, event)], [initialProgress()]);
    expect(states[5]!.running.map((task) => task.id)).toEqual(['read[0]', 'read[1]']);
    const final = states.at(-1)!;
    expect(final.tasks.map((task) => task.id)).toEqual(['list', 'read']);
    expect(final.tasksDone).toBe(2);
    expect(runTotals(final).tokens).toBe(35);
  });
});
