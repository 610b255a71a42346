/**
 * Delegated runs on the command line: `dualloop runs` lists a child run under the run whose tool
 * call started it (two levels deep too), `--limit` counts the runs nothing delegated to, and
 * `dualloop audit` nests each child's stop tree under the turn of its call (`--json`: `children`).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentTool, createKernel, sqliteStore } from 'dualloop';
import { scriptedModel, type ScriptCall, type ScriptStep } from 'dualloop/testing';
import { ROOT, runCli } from './cli-process.js';
import { useWorkspace } from './workspace.js';

const workspace = useWorkspace();
const EXAMPLE = join(ROOT, 'examples/research-writer.yaml');
const rows = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .slice(1)
    // Columns joined by two spaces; the leading indentation (the tree) kept.
    .map((line) => /^(\s*)(.*)$/.exec(line.replace(/\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+/, '  '))!.slice(1).map((part, index) => (index === 0 ? part : part.replace(/\s{2,}/g, '  '))).join(''));

describe('delegated runs in `dualloop runs` and `dualloop audit`', () => {
  it('lists a child under its parent; --limit counts the runs nothing delegated to', async () => {
    const { dir } = workspace();
    expect((await runCli(['run', EXAMPLE, '--run-id', 'first'], { cwd: dir })).code).toBe(0);
    expect((await runCli(['run', join(ROOT, 'examples/runaway.yaml'), '--run-id', 'between'], { cwd: dir })).code).toBe(2);
    expect((await runCli(['run', EXAMPLE, '--run-id', 'second'], { cwd: dir })).code).toBe(0);
    const table = await runCli(['runs'], { cwd: dir });
    expect(table.stdout.split('\n')[0]).toMatch(/^RUN\s+NAME\s+STARTED\s+STOP\s+TASKS\s+LINEAGE$/);
    expect(rows(table.stdout)).toEqual([
      'second  research-writer  goal_achieved  1/1',
      '  └─ second.t0.1.0  research-writer  goal_achieved  1/1  tool call call_0_0',
      'between  runaway-calculator  max_turns  1/1',
      'first  research-writer  goal_achieved  1/1',
      '  └─ first.t0.1.0  research-writer  goal_achieved  1/1  tool call call_0_0',
    ]);
    const limited = JSON.parse((await runCli(['runs', '--json', '--limit', '1'], { cwd: dir })).stdout) as { runId: string; parent?: { runId: string } }[];
    expect(limited.map((run) => [run.runId, run.parent?.runId])).toEqual([
      ['second', undefined],
      ['second.t0.1.0', 'second'],
    ]);
  });

  it('nests the child’s stop tree under the turn of its call; the child names its parent', async () => {
    const { dir } = workspace();
    expect((await runCli(['run', EXAMPLE, '--run-id', 'writer'], { cwd: dir })).code).toBe(0);
    const text = await runCli(['audit', 'writer'], { cwd: dir });
    expect(text.code).toBe(0);
    const lines = text.stdout.split('\n');
    const turn = lines.findIndex((line) => line.includes('├─ turn 1  researcher'));
    expect(turn).toBeGreaterThan(0);
    expect(lines[turn + 1]).toMatch(/│ {2}└─ researcher call_0_0 → child run writer\.t0\.1\.0 {2}finished$/);
    expect(lines[turn + 2]).toContain('│     workflow  goal_achieved — all 1 tasks finished');
    expect(lines.slice(turn + 3, turn + 10).some((line) => /│ {5}└─ ✓ task 1 task-1 {2}planner_stopped/.test(line))).toBe(true);
    expect(lines.findIndex((line) => line.includes('└─ turn 2  planner_stopped'))).toBeGreaterThan(turn + 5);

    const json = JSON.parse((await runCli(['audit', 'writer', '--json'], { cwd: dir })).stdout);
    expect(json.children).toEqual([expect.objectContaining({ runId: 'writer.t0.1.0', toolCallId: 'call_0_0', toolName: 'researcher', taskId: 'draft', taskIndex: 0, turn: 1 })]);
    expect(json.children[0].report).toMatchObject({ runId: 'writer.t0.1.0', parent: { runId: 'writer', toolCallId: 'call_0_0' }, workflow: { stop: { reason: 'goal_achieved' } } });

    const child = await runCli(['audit', 'writer.t0.1.0'], { cwd: dir });
    expect(child.stdout.split('\n')[1]).toBe('delegated by writer (tool call call_0_0)');
  });

  it('nests a child of a child two levels deep in both commands', async () => {
    const { dir } = workspace();
    const store = sqliteStore({ path: join(dir, 'runs.db') });
    try {
      const asks = (tool: string) => scriptedModel((call: ScriptCall): ScriptStep => (call.messages.at(-1)?.role === 'tool' ? { text: `done with ${tool}` } : { toolCalls: [{ name: tool, args: { topic: 'otters' }, id: `${tool}-call` }] }));
      const fact = agentTool({ name: 'fact', description: 'Finds one fact.', parameters: z.object({ topic: z.string() }), tasks: ({ topic }) => [`A fact on ${topic}.`], model: scriptedModel(() => ({ text: 'otters hold hands' })) });
      const research = agentTool({ name: 'research', description: 'Researches.', parameters: z.object({ topic: z.string() }), tasks: ({ topic }) => [`Research ${topic}.`], model: asks('fact'), tools: [fact] });
      const result = await createKernel({ name: 'deep', model: asks('research'), tools: [research], store }).start(['Write.'], { runId: 'top' }).result;
      expect(result.stop.reason).toBe('goal_achieved');
    } finally {
      store.close();
    }
    const table = await runCli(['runs', '--store', 'runs.db'], { cwd: dir });
    expect(rows(table.stdout)).toEqual([
      'top  deep  goal_achieved  1/1',
      '  └─ top.t0.1.0  deep  goal_achieved  1/1  tool call research-call',
      '     └─ top.t0.1.0.t0.1.0  deep  goal_achieved  1/1  tool call fact-call',
    ]);
    const json = JSON.parse((await runCli(['audit', 'top', '--store', 'runs.db', '--json'], { cwd: dir })).stdout);
    expect(json.children[0]).toMatchObject({ runId: 'top.t0.1.0', toolName: 'research', turn: 1 });
    expect(json.children[0].report.children[0]).toMatchObject({ runId: 'top.t0.1.0.t0.1.0', toolName: 'fact', toolCallId: 'fact-call', turn: 1 });
  });
});
