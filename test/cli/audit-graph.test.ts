import { describe, expect, it } from 'vitest';
import { createKernel, sqliteStore } from 'dualloop';
import { scriptedModel, type ScriptStep } from 'dualloop/testing';
import { runRecord, stop, taskResult, workflowResult } from '../store/builders.js';
import { branchGate, taskOf, turnOf } from '../support/graph-fixtures.js';
import { countingTool } from '../support/kernel-fixtures.js';
import { runCli } from './cli-process.js';
import { useWorkspace } from './workspace.js';

const workspace = useWorkspace();

/** The stop tree's task lines (those that start a task or an item), without the turns under them. */
function taskHeads(text: string): string[] {
  return text.split('\n').filter((line) => /^[│ ]*[├└]─ [✓■✗⊘…·] (task|item) /.test(line));
}

describe('dualloop audit of a graph run', () => {
  it('prints the tasks in task order with what each waits for and its stop; a fork says which tasks it ran again', async () => {
    const { dir, path } = workspace();
    const store = sqliteStore({ path: path('runs.db') });
    const model = scriptedModel((call): ScriptStep => (taskOf(call).startsWith('loop') ? { toolCalls: [{ name: 'missing' }] } : { text: `${taskOf(call)}: ok` }));
    const kernel = createKernel({ model, store, loopDetection: false, bounds: { inner: { maxTurns: 2 }, outer: { maxParallelTasks: 2 } } });
    await kernel.start(
      [
        { id: 'extract', description: 'extract facts', dependsOn: [] },
        { id: 'left', description: 'analyse {{extract.output}}', dependsOn: ['extract'] },
        { id: 'right', description: 'loop on it', dependsOn: ['extract'] },
        { id: 'report', description: 'merge', dependsOn: ['left', 'right'] },
      ],
      { runId: 'graph-1' },
    ).result;
    await (await kernel.fork('graph-1', { at: { task: 'left' }, runId: 'graph-fork' })).result;
    await store.close();

    const text = await runCli(['audit', 'graph-1', '--store', 'runs.db'], { cwd: dir });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('workflow  max_turns — task "right" stopped: turn 2 reached maxTurns=2  [maxTurns 2/2]');
    expect(taskHeads(text.stdout)).toEqual([
      '├─ ✓ task 1 extract  planner_stopped — the model answered without tool calls',
      '├─ ✓ task 2 left  ← after extract  planner_stopped — the model answered without tool calls',
      '├─ ■ task 3 right  ← after extract  max_turns — turn 2 reached maxTurns=2  [maxTurns 2/2]',
      '└─ ✗ task 4 report  ← after left, right  dependency_failed — dependency "right" stopped max_turns: turn 2 reached maxTurns=2',
    ]);
    // Under each task: its filled description, then its turns.
    expect(text.stdout).toContain('│    "analyse extract facts: ok"\n');
    expect(text.stdout).toMatch(/│ {4}└─ turn 2 {2}missing✗ {2}max_turns — turn 2 reached maxTurns=2/);

    const json = JSON.parse((await runCli(['audit', 'graph-1', '--store', 'runs.db', '--json'], { cwd: dir })).stdout);
    expect(json.graph.tasks.map((task: { taskId: string; dependsOn: string[] }) => [task.taskId, task.dependsOn])).toEqual([
      ['extract', []],
      ['left', ['extract']],
      ['right', ['extract']],
      ['report', ['left', 'right']],
    ]);

    const fork = await runCli(['audit', 'graph-fork', '--store', 'runs.db'], { cwd: dir });
    expect(fork.stdout).toContain("forked from graph-1 at 2  (before task 2)\n  ran again: left, report; every other task's result is graph-1's\n");
    expect(taskHeads(fork.stdout).map((line) => line.replace(/ {2}(planner_stopped|max_turns|dependency_failed) — .*?(?= {2}\(|$)/, ''))).toEqual([
      '├─ ✓ task 1 extract  (the result of graph-1)',
      '├─ ✓ task 2 left  ← after extract',
      '├─ ■ task 3 right  ← after extract  (the result of graph-1)',
      '└─ ✗ task 4 report  ← after left, right',
    ]);
    expect(JSON.parse((await runCli(['audit', 'graph-fork', '--store', 'runs.db', '--json'], { cwd: dir })).stdout).forkOf).toEqual({ runId: 'graph-1', at: { task: 2 }, rerun: ['left', 'report'] });
  });

  it('while the run runs, shows every running branch and the tasks not started yet', async () => {
    const { dir, path } = workspace();
    const store = sqliteStore({ path: path('runs.db') });
    const noop = countingTool('noop');
    const wait = branchGate('wait');
    const model = scriptedModel((call): ScriptStep => {
      const turn = turnOf(call);
      return turn === 0 ? { toolCalls: [{ name: 'noop' }] } : turn === 1 ? { toolCalls: [{ name: 'wait' }] } : { text: 'done' };
    });
    const run = createKernel({ model, store, tools: [noop.tool, wait.tool], bounds: { outer: { maxParallelTasks: 2 } } }).start(
      [
        { id: 'left', description: 'look left', dependsOn: [] },
        { id: 'right', description: 'look right', dependsOn: [] },
        { id: 'merge', description: 'merge both', dependsOn: ['left', 'right'] },
      ],
      { runId: 'running-graph' },
    );
    try {
      // Both branches checkpointed their first turn and wait in their second.
      await expect.poll(async () => (await store.audit('running-graph'))?.running?.length, { timeout: 10_000 }).toBe(2);
      const text = await runCli(['audit', 'running-graph', '--store', 'runs.db'], { cwd: dir });
      expect(text.code).toBe(0);
      expect(text.stdout).toContain('running-graph  started ');
      expect(taskHeads(text.stdout)).toEqual([
        '├─ … task 1 left  in progress at the last checkpoint (resumable)',
        '├─ … task 2 right  in progress at the last checkpoint (resumable)',
        '└─ · task 3 merge  ← after left, right  not started at the last checkpoint',
      ]);
      expect(text.stdout).toContain('│    "look left"\n│    1 turn · 1 tool call · ');
      expect(text.stdout).toMatch(/│ {4}└─ turn 1 {2}noop {2}\d+ms\n├─ … task 2 right/);
      expect(text.stdout).toContain('└─ · task 3 merge  ← after left, right  not started at the last checkpoint\n     "merge both"\n');
    } finally {
      wait.open();
      await run.result;
      await store.close();
    }
  });

  it('puts a fan-out task’s items under it, in item order', async () => {
    const { dir, path } = workspace();
    const store = sqliteStore({ path: path('runs.db') });
    const bounds = runRecord('any').tasks[0]!.bounds;
    const files = { type: 'object', properties: { files: { type: 'array', items: { type: 'string' } } } };
    await store.createRun(
      runRecord('fan-out', {
        tasks: [
          { id: 'list', index: 0, description: 'list the files', bounds, output: files },
          { id: 'read', index: 1, description: 'read {{item}}', bounds, forEach: 'list.output.files' },
          { id: 'sum', index: 2, description: 'sum up', bounds, dependsOn: ['read'] },
        ],
      }),
    );
    const item = (position: number, reason: 'planner_stopped' | 'max_turns' = 'planner_stopped') => ({ ...taskResult(1, reason), taskId: `read[${position}]`, description: `read f${position}` });
    const read = { ...taskResult(1), taskId: 'read', description: 'read {{item}}', turns: [], stop: stop('goal_achieved', 'all 2 items ended; 1 stopped early: read[1] max_turns') };
    const summed = { ...taskResult(2), taskId: 'sum', description: 'sum up' };
    await store.saveResult(workflowResult('fan-out', 'goal_achieved', [{ ...taskResult(0), taskId: 'list' }, item(1, 'max_turns'), item(0), read, summed]));
    await store.close();

    const text = await runCli(['audit', 'fan-out', '--store', 'runs.db'], { cwd: dir });
    expect(taskHeads(text.stdout)).toEqual([
      '├─ ✓ task 1 list  planner_stopped — task 1: planner_stopped',
      '├─ ✓ task 2 read  ← after list  goal_achieved — all 2 items ended; 1 stopped early: read[1] max_turns',
      '│    ├─ ✓ item read[0]  planner_stopped — task 2: planner_stopped',
      '│    └─ ■ item read[1]  max_turns — task 2: max_turns',
      '└─ ✓ task 3 sum  ← after read  planner_stopped — task 3: planner_stopped',
    ]);
    // An item's turns sit under the item, inside its task.
    expect(text.stdout).toContain('│    ├─ ✓ item read[0]  planner_stopped — task 2: planner_stopped\n│    │    "read f0"\n');
  });
});
