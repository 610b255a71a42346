/**
 * `dualloop audit` shows a typed task's answers that did not match its schema, on their turns,
 * and its `invalid_output` stop with the bound; the run's exit code is the bound's (2).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, sqliteStore } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { runCli } from './cli-process.js';
import { useWorkspace } from './workspace.js';
import { exitCodeFor } from '../../src/cli/exit-codes.js';

const workspace = useWorkspace();

describe('dualloop audit: typed outputs', () => {
  it('shows each repair on its turn and the invalid_output stop, as text and as JSON', async () => {
    const { dir, path } = workspace();
    const store = sqliteStore({ path: path('runs.db') });
    const model = scriptedModel(() => ({ text: '{"total": "many"}' }));
    const task = { id: 'count', description: 'Count.', output: z.object({ total: z.number() }), bounds: { maxOutputRepairs: 1 } };
    const result = await createKernel({ model, store }).start([task], { runId: 'typed-1' }).result;
    await store.close();
    expect(result.stop.reason).toBe('invalid_output');
    expect(exitCodeFor(result.stop.reason)).toBe(2);

    const json = await runCli(['audit', 'typed-1', '--store', 'runs.db', '--json'], { cwd: dir });
    expect(json.code).toBe(0);
    const audited = JSON.parse(json.stdout).tasks[0];
    expect(audited.bound).toEqual({ name: 'maxOutputRepairs', limit: 1, value: 1 });
    expect(audited.turns.map((turn: { outputInvalid?: { outcome: string; repairs: number } }) => [turn.outputInvalid?.outcome, turn.outputInvalid?.repairs])).toEqual([
      ['repair', 1],
      ['stopped', 1],
    ]);
    expect(audited.turns[0].outputInvalid.issues).toEqual([{ path: 'total', message: 'Invalid input: expected number, received string' }]);

    const text = await runCli(['audit', 'typed-1', '--store', 'runs.db'], { cwd: dir });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('invalid_output — the answer did not match the output schema after 1 repair (maxOutputRepairs=1): total: Invalid input: expected number, received string  [maxOutputRepairs 1/1]');
    expect(text.stdout).toMatch(/├─ turn 1 {2}\[output invalid, sent back \(repair 1\): total: Invalid input: expected number, received string\] {2}\d+ms\n/);
    expect(text.stdout).toMatch(/└─ turn 2 {2}\[output invalid, not sent back: total: .*\] {2}invalid_output/);
  });
});
