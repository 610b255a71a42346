import { describe, expect, it } from 'vitest';
import { CHECKPOINT_VERSION } from '../../src/contracts/store.js';
import { parseEnvelope } from '../../src/checkpoint/envelope.js';
import { FIXTURE_RUN_ID, fixtureValue } from './fixtures.js';

describe('parseEnvelope on the stored fixtures', () => {
  it('reads the current version at 1', () => {
    expect(CHECKPOINT_VERSION).toBe(1);
  });

  it.each(['v1-task-boundary.json', 'v1-mid-task.json'] as const)('accepts %s as it was written', (file) => {
    const parsed = parseEnvelope(fixtureValue(file), FIXTURE_RUN_ID);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(parsed.envelope).toEqual(fixtureValue(file));
  });

  it('keeps the running task of a mid-task checkpoint', () => {
    const parsed = parseEnvelope(fixtureValue('v1-mid-task.json'), FIXTURE_RUN_ID);
    if (!parsed.ok) throw new Error(parsed.problem.message);
    expect(parsed.envelope.kind).toBe('turn');
    expect(parsed.envelope.progress.active?.task.id).toBe('task-2');
    expect(parsed.envelope.progress.active?.point.progress.turns).toHaveLength(1);
  });

  it('refuses truncated JSON as corrupt, naming the run', () => {
    const parsed = parseEnvelope(fixtureValue('corrupt-truncated.json'), FIXTURE_RUN_ID);
    expect(parsed).toEqual({ ok: false, problem: { code: 'checkpoint_corrupt', message: expect.stringContaining(`run ${FIXTURE_RUN_ID}: checkpoint is corrupt`) } });
  });

  it('refuses wrong types as corrupt, naming the fields', () => {
    const parsed = parseEnvelope(fixtureValue('corrupt-wrong-types.json'), FIXTURE_RUN_ID);
    if (parsed.ok) throw new Error('accepted a corrupt checkpoint');
    expect(parsed.problem.code).toBe('checkpoint_corrupt');
    expect(parsed.problem.message).toContain('sequence');
    expect(parsed.problem.message).toContain('progress.metrics.turns');
    expect(parsed.problem.message).toContain('progress.results.0.stop.reason');
    expect(parsed.problem.message).toContain('the run was not restarted');
  });

  it('refuses a future version as such, not as corrupt, and says what to do', () => {
    const parsed = parseEnvelope(fixtureValue('future-v2.json'), FIXTURE_RUN_ID);
    if (parsed.ok) throw new Error('accepted a future checkpoint');
    expect(parsed.problem.code).toBe('checkpoint_future_version');
    expect(parsed.problem.message).toContain('checkpoint version 2');
    expect(parsed.problem.message).toContain('upgrade dualloop');
  });

  it('refuses a checkpoint of another run', () => {
    const parsed = parseEnvelope(fixtureValue('v1-mid-task.json'), 'another-run');
    expect(parsed).toEqual({ ok: false, problem: { code: 'checkpoint_corrupt', message: `run another-run: checkpoint belongs to run ${FIXTURE_RUN_ID}` } });
  });

  it.each([null, 42, 'text', [], {}])('refuses %j as corrupt', (raw) => {
    const parsed = parseEnvelope(raw, FIXTURE_RUN_ID);
    expect(parsed.ok ? undefined : parsed.problem.code).toBe('checkpoint_corrupt');
  });
});
