// SIGKILL while a delegated child run runs, then resume the parent in a new process: the child
// continues from its own last checkpoint (not started again), no recorded tool runs twice, the
// parent does not ask its model again for the turn that delegated, and records the tool result
// only when the child ends.
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBuilt, jsonLines, newWorkDir, outcomeOf, spawnChild, storedState } from './crash-harness.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/delegation-crash-child.mjs', import.meta.url));

describe('a run killed while its delegated child runs', () => {
  const workDirs: string[] = [];
  afterAll(() => {
    for (const workDir of workDirs) rmSync(workDir, { recursive: true, force: true });
  });

  it.each([1, 2])('continues the child once %i of its tool calls have ended', async (killAfterTools) => {
    assertBuilt();
    const workDir = newWorkDir();
    workDirs.push(workDir);
    const child = spawnChild('start', workDir, { fixture: FIXTURE });
    await child.line('started');
    let ended = 0;
    child.process.stdout?.on('data', (chunk: Buffer) => {
      ended += chunk.toString('utf8').split('\n').filter((line) => line.startsWith('tool look-')).length;
      if (ended >= killAfterTools) child.process.kill('SIGKILL');
    });
    expect((await child.exited).signal).toBe('SIGKILL');
    const recorded = new Set(storedState(workDir).toolCallIds);

    const resumed = await spawnChild('resume', workDir, { fixture: FIXTURE }).exited;
    expect(resumed, resumed.stderr).toMatchObject({ code: 0, signal: null });
    const outcome = outcomeOf(workDir, resumed.pid);
    if (!('result' in outcome)) throw new Error('the resume failed');
    expect(outcome.result.stop.reason).toBe('goal_achieved');
    expect(outcome.result.tasks[0]!.output).toBe('report written');

    const effects = jsonLines<{ runId: string; toolCallId: string }>(workDir, 'side-effects.jsonl');
    for (const effect of effects.filter((entry) => entry.pid === resumed.pid)) expect(recorded.has(effect.toolCallId), `${effect.toolCallId} ran again`).toBe(false);
    // One child, always the same run; each of its three look-ups ran to the end once.
    expect(new Set(effects.map((effect) => effect.runId))).toEqual(new Set(['writer.t0.1.0']));
    expect([...new Set(effects.map((effect) => effect.toolCallId))].sort()).toEqual(['look-1', 'look-2', 'look-3']);
    // The writer's delegating turn was saved before the child started: the resume did not ask its model for turn 1 again.
    const calls = jsonLines<{ task: string; turn: number }>(workDir, 'model-calls.jsonl').filter((call) => call.pid === resumed.pid);
    expect(calls.filter((call) => call.task === 'write the report').map((call) => call.turn)).toEqual([2]);
    // The child was continued, not started again: its log holds a first start and a resume.
    const starts = storedState(workDir).events.filter((event) => event.runId === 'writer.t0.1.0' && event.type === 'workflow_start');
    expect(starts.map((event) => (event as { resumed: boolean }).resumed)).toEqual([false, true]);
  }, 60_000);
});
