import { describe, expect, it } from 'vitest';
import { createKernel, sqliteStore, type Message } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { countingTool } from '../support/kernel-fixtures.js';
import { compactionEvent, event, history, runRecord } from '../store/builders.js';
import { ROOT, runCli } from './cli-process.js';
import { useWorkspace } from './workspace.js';

const workspace = useWorkspace();

describe('dualloop audit: compactions and the wrap-up call', () => {
  it('shows each compaction on the turn it came before, as text and as JSON', async () => {
    const { dir, path } = workspace();
    const store = sqliteStore({ path: path('runs.db') });
    const { tool } = countingTool();
    const model = scriptedModel(({ index }) => (index < 3 ? { toolCalls: [{ name: 'step', args: { n: index } }] } : { text: 'done' }));
    const compactor = {
      shouldCompact: (_messages: readonly Message[], { turn }: { turn: number }) => turn === 3,
      compact: (messages: readonly Message[]): Message[] => [messages[0]!, { role: 'user', content: '(earlier turns summarised)' }],
    };
    const result = await createKernel({ model, tools: [tool], store, compactor }).start(['compacting task'], { runId: 'compacted-1' }).result;
    await store.close();
    expect(result.stop.reason).toBe('goal_achieved');

    const json = await runCli(['audit', 'compacted-1', '--store', 'runs.db', '--json'], { cwd: dir });
    expect(json.code).toBe(0);
    const task = JSON.parse(json.stdout).tasks[0];
    const compaction = { turn: 3, outcome: 'compacted', messagesBefore: 5, messagesAfter: 2 };
    expect(task.compactions).toEqual([expect.objectContaining(compaction)]);
    expect(task.turns[2].compaction).toEqual(task.compactions[0]);
    expect(task.turns.filter((turn: { compaction?: unknown }) => turn.compaction !== undefined)).toHaveLength(1);
    expect(task.wrapUp).toBeUndefined();

    const text = await runCli(['audit', 'compacted-1', '--store', 'runs.db'], { cwd: dir });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/├─ turn 2 {2}step {2}\d+ms\n/);
    expect(text.stdout).toMatch(/├─ turn 3 {2}\[compacted 5 → 2 messages\] {2}step {2}\d+ms\n/);
    expect(text.stdout).toMatch(/└─ turn 4 {2}planner_stopped/);
  });

  it('shows a compaction of the turn a run was in when it stopped without a result, before that turn', async () => {
    const { dir, path } = workspace();
    const store = sqliteStore({ path: path('runs.db') });
    store.createRun(runRecord('crashed-1'));
    store.appendEvent(event('crashed-1', 1));
    // Task 2 checkpointed its turn 1, compacted before turn 2, then the process died.
    for (const entry of history('crashed-1').slice(0, 3)) store.saveCheckpoint(entry);
    store.appendEvent(compactionEvent('crashed-1', 2, 1, 2, [12, 5]));
    store.close();

    const json = await runCli(['audit', 'crashed-1', '--store', 'runs.db', '--json'], { cwd: dir });
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report.status).toBe('incomplete');
    expect(report.active.compactions).toEqual([expect.objectContaining({ turn: 2, outcome: 'compacted', messagesBefore: 12, messagesAfter: 5 })]);
    expect(report.active.turns.map((turn: { turn: number }) => turn.turn)).toEqual([1]);

    const text = await runCli(['audit', 'crashed-1', '--store', 'runs.db'], { cwd: dir });
    expect(text.stdout).toMatch(/… task 2 task-2 {2}in progress at the last checkpoint \(resumable\)\n(.*\n){2}\s+├─ turn 1 {2}lookup {2}\d+ms\n\s+└─ before turn 2 {2}\[compacted 12 → 5 messages\]\n/);
  });

  it('shows the wrap-up call after the turn whose bound stopped the task, as text and as JSON', async () => {
    const { dir } = workspace();
    expect((await runCli(['run', `${ROOT}examples/runaway.yaml`, '--run-id', 'wrapped-1'], { cwd: dir })).code).toBe(2);
    const answer = 'Best answer so far: 17% of 2,340 is 397.80.';

    const json = await runCli(['audit', 'wrapped-1', '--json'], { cwd: dir });
    expect(json.code).toBe(0);
    const task = JSON.parse(json.stdout).tasks[0];
    expect(task.stop.reason).toBe('max_turns');
    expect(task.turns).toHaveLength(5);
    expect(task.compactions).toEqual([]);
    expect(task.wrapUp).toEqual({ afterTurn: 5, finishReason: 'stop', textLength: answer.length, usage: { inputTokens: 431, outputTokens: 16 }, costUsd: 0, runtimeMs: expect.any(Number) });

    const text = await runCli(['audit', 'wrapped-1'], { cwd: dir });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/├─ turn 5 {2}calculator {2}max_turns/);
    expect(text.stdout).toMatch(new RegExp(`└─ wrap-up after turn 5 {2}stop · ${answer.length} chars · 447 tokens · \\$0\\.0000 {2}\\d+ms\\n`));
  });
});
