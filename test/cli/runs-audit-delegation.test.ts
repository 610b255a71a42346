import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentTool, createKernel, sqliteStore } from 'dualloop';
import { scriptedModel, type ScriptCall } from 'dualloop/testing';
import { runCli } from './cli-process.js';
import { useWorkspace } from './workspace.js';

/*
 * Delegated runs (`agentTool`) on the command line (docs/cli.md, ADR/0485): `dualloop runs` lists
 * each under the run that started it, `dualloop audit` nests each child's stop tree under the
 * delegating call. The runs are made through the public API in a SQLite file, read by the built CLI.
 */

const workspace = useWorkspace();

/**
 * One model for every run, answering by its task: a writer asks a researcher about otters (turn 1)
 * and beavers (turn 2) and then writes; the otter researcher has a checker check a claim first.
 */
function answer(call: ScriptCall) {
  const task = call.messages.find((message) => message.role === 'user')?.content ?? '';
  const results = call.messages.filter((message) => message.role === 'tool').length;
  if (task.startsWith('Write')) {
    if (results === 0) return { toolCalls: [{ id: 'call_otters', name: 'research', args: { topic: 'otters' } }] };
    if (results === 1) return { toolCalls: [{ id: 'call_beavers', name: 'research', args: { topic: 'beavers' } }] };
    return { text: 'Otters float; beavers build.' };
  }
  if (task === 'Research otters.' && results === 0) return { toolCalls: [{ id: 'call_check', name: 'check', args: { claim: 'otters float' } }] };
  if (task.startsWith('Research')) return { text: `${task.slice('Research '.length, -1)} are well known.` };
  if (task.startsWith('Check')) return { text: 'true' };
  return { text: 'hello' };
}

const check = agentTool({
  name: 'check',
  description: 'Checks a claim.',
  parameters: z.object({ claim: z.string() }),
  tasks: ({ claim }) => [`Check: ${claim}.`],
});
const research = agentTool({
  name: 'research',
  description: 'Researches a topic.',
  parameters: z.object({ topic: z.string() }),
  tasks: ({ topic }) => [`Research ${topic}.`],
  tools: [check],
});

/** `older` (a writer: two children, the first with a child of its own), `solo` (no delegation), `newer` (a writer), oldest first. */
async function recordRuns(path: string): Promise<void> {
  const store = sqliteStore({ path });
  try {
    const kernel = createKernel({ model: scriptedModel(answer), tools: [research], store });
    for (const [runId, task] of [['older', 'Write about otters and beavers.'], ['solo', 'Say hello.'], ['newer', 'Write about otters and beavers.']] as const) {
      const result = await kernel.start([task], { runId }).result;
      expect(result.stop.reason, runId).toBe('goal_achieved');
    }
  } finally {
    await store.close();
  }
}

/** A table row with its start time and runs of spaces squeezed, for comparing. */
const squeezed = (line: string) => line.replace(/\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+/, '  ').replace(/(\S)\s{2,}/g, '$1  ');

describe('delegated runs in `dualloop runs` and `dualloop audit`', () => {
  it('lists each child run right after the run that started it, a child’s child deeper; --limit counts the runs nothing delegated to', async () => {
    const { dir, path } = workspace();
    await recordRuns(path('.dualloop/runs.db'));

    const table = await runCli(['runs'], { cwd: dir });
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^RUN\s+NAME\s+STARTED\s+STOP\s+TASKS\s+LINEAGE$/);
    expect(lines.slice(1).map(squeezed)).toEqual([
      'newer  goal_achieved  1/1',
      '  └─ newer.t0.1.0  goal_achieved  1/1  tool call call_otters',
      '     └─ newer.t0.1.0.t0.1.0  goal_achieved  1/1  tool call call_check',
      '  └─ newer.t0.2.0  goal_achieved  1/1  tool call call_beavers',
      'solo  goal_achieved  1/1',
      'older  goal_achieved  1/1',
      '  └─ older.t0.1.0  goal_achieved  1/1  tool call call_otters',
      '     └─ older.t0.1.0.t0.1.0  goal_achieved  1/1  tool call call_check',
      '  └─ older.t0.2.0  goal_achieved  1/1  tool call call_beavers',
    ]);

    const limited = await runCli(['runs', '--limit', '2'], { cwd: dir });
    expect(limited.stdout.trimEnd().split('\n').slice(1).map((line) => line.trim().replace(/^└─ /, '').split(/\s+/)[0])).toEqual([
      'newer',
      'newer.t0.1.0',
      'newer.t0.1.0.t0.1.0',
      'newer.t0.2.0',
      'solo',
    ]);

    // --json: the same runs in the same order, a flat list of the store's RunSummary.
    const json = await runCli(['runs', '--json', '--limit', '1'], { cwd: dir });
    expect(json.code).toBe(0);
    const runs = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(runs.map((run) => [run.runId, run.parent])).toEqual([
      ['newer', undefined],
      ['newer.t0.1.0', { runId: 'newer', toolCallId: 'call_otters' }],
      ['newer.t0.1.0.t0.1.0', { runId: 'newer.t0.1.0', toolCallId: 'call_check' }],
      ['newer.t0.2.0', { runId: 'newer', toolCallId: 'call_beavers' }],
    ]);
    for (const run of runs) expect(Object.keys(run).sort()).toEqual(['createdAt', 'runId', 'stop', 'tasksDone', 'tasksTotal', ...(run.parent === undefined ? [] : ['parent'])].sort());
  });

  it('nests each child’s stop tree under the turn of its call, level after level, and carries it under `children` in --json', async () => {
    const { dir, path } = workspace();
    await recordRuns(path('.dualloop/runs.db'));

    const text = await runCli(['audit', 'older'], { cwd: dir });
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    const at = (pattern: RegExp) => {
      const index = lines.findIndex((line) => pattern.test(line));
      expect(index, `${pattern} in\n${text.stdout}`).toBeGreaterThan(0);
      return index;
    };
    const turn1 = at(/^ {5}├─ turn 1 {2}research {2}\S+$/);
    expect(lines[turn1 + 1]).toBe('     │  └─ research call_otters → child run older.t0.1.0  finished');
    expect(lines[turn1 + 2]).toBe('     │     workflow  goal_achieved — all 1 tasks finished');
    // The child's task, its turn 1 and, under that turn, the grandchild's tree; then the child's turn 2.
    const childTask = at(/^ {5}│ {5}└─ ✓ task 1 task-1 {2}planner_stopped/);
    expect(childTask).toBeGreaterThan(turn1 + 2);
    expect(lines[childTask + 1]).toBe('     │          "Research otters."');
    expect(lines[childTask + 3]).toMatch(/^ {5}│ {10}├─ turn 1 {2}check {2}\S+$/);
    expect(lines[childTask + 4]).toBe('     │          │  └─ check call_check → child run older.t0.1.0.t0.1.0  finished');
    const grandchildTask = at(/^ {5}│ {10}│ {5}└─ ✓ task 1 task-1 {2}planner_stopped/);
    expect(lines[grandchildTask + 1]).toBe('     │          │          "Check: otters float."');
    const childTurn2 = at(/^ {5}│ {10}└─ turn 2 {2}planner_stopped/);
    expect(childTurn2).toBeGreaterThan(grandchildTask);
    // The writer's turn 2 has the beaver researcher (no child of its own), then its turn 3.
    const turn2 = at(/^ {5}├─ turn 2 {2}research {2}\S+$/);
    expect(turn2).toBeGreaterThan(childTurn2);
    expect(lines[turn2 + 1]).toBe('     │  └─ research call_beavers → child run older.t0.2.0  finished');
    expect(at(/^ {5}└─ turn 3 {2}planner_stopped/)).toBeGreaterThan(turn2 + 1);
    expect(lines.at(-1)).toMatch(/^\d+ events in the log$/);

    const json = JSON.parse((await runCli(['audit', 'older', '--json'], { cwd: dir })).stdout);
    expect(json.parent).toBeUndefined();
    expect(json.children).toEqual([
      expect.objectContaining({ runId: 'older.t0.1.0', toolCallId: 'call_otters', toolName: 'research', taskId: 'task-1', taskIndex: 0, turn: 1 }),
      expect.objectContaining({ runId: 'older.t0.2.0', toolCallId: 'call_beavers', toolName: 'research', taskId: 'task-1', taskIndex: 0, turn: 2 }),
    ]);
    const [otters, beavers] = json.children;
    expect(otters.report).toMatchObject({ runId: 'older.t0.1.0', parent: { runId: 'older', toolCallId: 'call_otters' }, workflow: { stop: { reason: 'goal_achieved' } } });
    expect(otters.report.children).toEqual([
      expect.objectContaining({ runId: 'older.t0.1.0.t0.1.0', toolCallId: 'call_check', toolName: 'check', turn: 1, report: expect.objectContaining({ parent: { runId: 'older.t0.1.0', toolCallId: 'call_check' } }) }),
    ]);
    expect(otters.report.children[0].report.children).toBeUndefined();
    expect(beavers.report.children).toBeUndefined();
    // Only the audited run's own children: none of `newer`'s, none for a run that delegated nothing.
    expect(JSON.stringify(json)).not.toContain('newer');
    expect(JSON.parse((await runCli(['audit', 'solo', '--json'], { cwd: dir })).stdout).children).toBeUndefined();
  });

  it('places each child at its own call when the model reuses a call id on a later turn', async () => {
    const { dir, path } = workspace();
    const store = sqliteStore({ path: path('.dualloop/runs.db') });
    try {
      // Both of the writer's calls are `call_1`: only the child's id (its place) tells them apart.
      const reusing = (call: ScriptCall) => {
        const writer = call.messages.find((message) => message.role === 'user')?.content.startsWith('Write') === true;
        const results = call.messages.filter((message) => message.role === 'tool').length;
        if (writer && results < 2) return { toolCalls: [{ id: 'call_1', name: 'research', args: { topic: results === 0 ? 'otters' : 'beavers' } }] };
        return { text: 'done' };
      };
      const kernel = createKernel({ model: scriptedModel(reusing), tools: [research], store });
      expect((await kernel.start(['Write about otters and beavers.'], { runId: 'writer' }).result).stop.reason).toBe('goal_achieved');
    } finally {
      await store.close();
    }

    const json = JSON.parse((await runCli(['audit', 'writer', '--json'], { cwd: dir })).stdout);
    expect(json.children.map((child: { runId: string; toolCallId: string; turn: number }) => [child.runId, child.toolCallId, child.turn])).toEqual([
      ['writer.t0.1.0', 'call_1', 1],
      ['writer.t0.2.0', 'call_1', 2],
    ]);
    const lines = (await runCli(['audit', 'writer'], { cwd: dir })).stdout.split('\n');
    const turn2 = lines.findIndex((line) => line.startsWith('     ├─ turn 2  research'));
    expect(lines[turn2 + 1]).toBe('     │  └─ research call_1 → child run writer.t0.2.0  finished');
  });

  it('audits a child alone: its second line names the run and call that started it, its own children under it', async () => {
    const { dir, path } = workspace();
    await recordRuns(path('.dualloop/runs.db'));

    const text = await runCli(['audit', 'newer.t0.1.0'], { cwd: dir });
    expect(text.code).toBe(0);
    const lines = text.stdout.split('\n');
    expect(lines[0]).toMatch(/^newer\.t0\.1\.0 {2}started .* · finished$/);
    expect(lines[1]).toBe('delegated by newer (tool call call_otters)');
    expect(text.stdout).toContain('│  └─ check call_check → child run newer.t0.1.0.t0.1.0  finished');

    const json = JSON.parse((await runCli(['audit', 'newer.t0.1.0', '--json'], { cwd: dir })).stdout);
    expect(json.parent).toEqual({ runId: 'newer', toolCallId: 'call_otters' });
    expect(json.children.map((child: { runId: string }) => child.runId)).toEqual(['newer.t0.1.0.t0.1.0']);
  });
});
