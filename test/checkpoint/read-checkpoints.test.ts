import { describe, expect, it } from 'vitest';
import { CHECKPOINT_VERSION, type StoredCheckpoints } from 'dualloop';
import { rebuildCheckpoint } from '../../src/checkpoint/read-checkpoints.js';
import { FIXTURE_RUN_ID, fixtureEntries, fixtureHistory, fixtureValue } from './fixtures.js';

function rebuilt(raw: unknown, runId = FIXTURE_RUN_ID) {
  const outcome = rebuildCheckpoint(raw, runId);
  if (!outcome.ok) throw new Error(outcome.problem.message);
  return outcome.checkpoint!;
}

function problem(raw: unknown, runId = FIXTURE_RUN_ID) {
  const outcome = rebuildCheckpoint(raw, runId);
  if (outcome.ok) throw new Error('accepted a damaged checkpoint');
  return outcome.problem;
}

/** A history with one entry changed by `edit` (entries parsed from JSON: the store's answer). */
function edited(sequence: number, edit: (history: { results: unknown[]; entries: Record<string, unknown>[] }) => void): StoredCheckpoints {
  const history = JSON.parse(JSON.stringify(fixtureHistory(sequence))) as { results: unknown[]; entries: Record<string, unknown>[] };
  edit(history);
  return history;
}

describe('reading checkpoints back', () => {
  it('reads up to version 3 (a graph run writes 3, a list run 2)', () => {
    expect(CHECKPOINT_VERSION).toBe(3);
  });

  it('reads a version 2 history at every entry of the fixture run', () => {
    const kinds = fixtureEntries().map((entry) => entry.kind);
    expect(kinds).toEqual(['turn', 'task', 'turn', 'task']);
    const atTurn = rebuilt(fixtureHistory(3)).view;
    expect(atTurn).toMatchObject({ version: 2, sequence: 3, kind: 'turn', eventSeq: 25 });
    expect(atTurn.progress.results.map((task) => task.taskId)).toEqual(['task-1']);
    expect(atTurn.progress.active?.task.id).toBe('task-2');
    expect(atTurn.progress.active?.point.progress.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(atTurn.progress.modelCallIndex).toBe(3);
    const atEnd = rebuilt(fixtureHistory(4)).view;
    expect(atEnd.progress.results.map((task) => task.output)).toEqual(['durable has 7 letters', 'resume has 6 letters']);
    expect(atEnd.progress.active).toBeUndefined();
  });

  it.each(['v1-task-boundary.json', 'v1-mid-task.json'] as const)('reads %s, a version 1 envelope, as the snapshot it is', (file) => {
    const checkpoint = rebuilt(fixtureValue(file));
    const stored = fixtureValue(file) as { progress: unknown; sequence: number; kind: string };
    expect(checkpoint.view.progress).toEqual(stored.progress);
    expect(checkpoint.view).toMatchObject({ version: 1, sequence: stored.sequence, kind: stored.kind });
    expect(checkpoint.legacyBase).toBe(true);
    // The same envelope as the first entry of a history (a migrated SQLite file).
    expect(rebuilt({ results: [], entries: [fixtureValue(file)] }).view).toEqual(checkpoint.view);
  });

  it('answers nothing for a run without a checkpoint', () => {
    expect(rebuildCheckpoint(undefined, FIXTURE_RUN_ID)).toEqual({ ok: true, checkpoint: undefined });
  });

  it('refuses truncated JSON as corrupt, naming the run', () => {
    expect(problem(fixtureValue('corrupt-truncated.json'))).toEqual({ code: 'checkpoint_corrupt', message: expect.stringContaining(`run ${FIXTURE_RUN_ID}: checkpoint is corrupt`) });
  });

  it('refuses wrong types as corrupt, naming the fields', () => {
    const refused = problem(fixtureValue('corrupt-wrong-types.json'));
    expect(refused.code).toBe('checkpoint_corrupt');
    expect(refused.message).toContain('sequence');
    expect(refused.message).toContain('progress.metrics.turns');
    expect(refused.message).toContain('progress.results.0.stop.reason');
    expect(refused.message).toContain('the run was not restarted');
  });

  it('refuses a future version as such, not as corrupt, and says what to do', () => {
    for (const raw of [fixtureValue('future-v4.json'), { results: [], entries: [fixtureValue('future-v4.json')] }]) {
      const refused = problem(raw);
      expect(refused.code).toBe('checkpoint_future_version');
      expect(refused.message).toContain('checkpoint version 4');
      expect(refused.message).toContain('upgrade dualloop');
    }
  });

  it('refuses a checkpoint of another run', () => {
    expect(problem(fixtureValue('v1-mid-task.json'), 'another-run')).toEqual({ code: 'checkpoint_corrupt', message: `run another-run: checkpoint belongs to run ${FIXTURE_RUN_ID}` });
    expect(problem(fixtureHistory(3), 'another-run').code).toBe('checkpoint_corrupt');
  });

  it('reports a damaged history by what is missing, never as a fresh start', () => {
    const gap = edited(3, (history) => history.entries.splice(0, 1, { ...history.entries[0], snapshot: undefined }));
    // Entry 2 (a snapshot) without its snapshot: the history now starts at #2, and #1 is missing.
    expect(problem(gap).message).toMatch(/checkpoint #1 is missing before #2/);
    const missingResult = edited(3, (history) => history.results.splice(0, 1));
    expect(problem(missingResult).message).toMatch(/task results 1–1 are missing/);
    const badRange = edited(3, (history) => {
      const active = (history.entries[1]!.change as { active: { messages: unknown[] } }).active;
      active.messages = [[0, 9]];
      delete (history.entries[1]!.change as { active: { task?: unknown } }).active.task;
    });
    expect(problem(badRange).message).toMatch(/checkpoint #3/);
    const skipped = edited(3, (history) => {
      history.entries[1]!.sequence = 4;
    });
    expect(problem(skipped).message).toMatch(/checkpoint #3 is missing before #4/);
  });

  it.each([null, 42, 'text', [], {}, { results: [], entries: [] }])('refuses %j', (raw) => {
    const outcome = rebuildCheckpoint(raw, FIXTURE_RUN_ID);
    if (raw === null) expect(outcome).toEqual({ ok: true, checkpoint: undefined });
    else expect(outcome.ok ? undefined : outcome.problem.code).toBe('checkpoint_corrupt');
  });
});
