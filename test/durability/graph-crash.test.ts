// SIGKILL while three branches of a graph are mid-turn, then resume in a new process: each branch
// continues from its own last turn, no recorded tool runs again, finished tasks are not run
// again, and the run ends as an uninterrupted one does.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBuilt, jsonLines, newWorkDir, outcomeOf, spawnChild, storedState, withoutTimings } from './crash-harness.js';
import { fileURLToPath } from 'node:url';

const FIXTURE = fileURLToPath(new URL('./fixtures/graph-crash-child.mjs', import.meta.url));

interface SideEffect {
  readonly toolCallId: string;
  readonly task: string;
  readonly turn: number;
}

describe('a graph run killed while its branches run', () => {
  const workDirs: string[] = [];
  afterAll(() => {
    for (const workDir of workDirs) rmSync(workDir, { recursive: true, force: true });
  });

  it.each([2, 4, 5])('resumes each branch from its own last turn once %i tool calls have ended', async (killAfterTools) => {
    assertBuilt();
    const baselineDir = newWorkDir();
    const workDir = newWorkDir();
    workDirs.push(baselineDir, workDir);
    const baseline = await spawnChild('start', baselineDir, { fixture: FIXTURE }).exited;
    expect(baseline, baseline.stderr).toMatchObject({ code: 0 });
    const expected = outcomeOf(baselineDir, baseline.pid);

    const child = spawnChild('start', workDir, { fixture: FIXTURE });
    await child.line('started');
    // Killed once that many tool calls ended: the branches are mid-run (each tool takes 40 ms, a model call 30 ms).
    let ended = 0;
    child.process.stdout?.on('data', (chunk: Buffer) => {
      ended += chunk.toString('utf8').split('\n').filter((line) => line.startsWith('tool ')).length;
      if (ended >= killAfterTools) child.process.kill('SIGKILL');
    });
    const killed = await child.exited;
    expect(killed.signal).toBe('SIGKILL');
    const recorded = new Set(storedState(workDir).toolCallIds);
    const before = jsonLines<SideEffect>(workDir, 'side-effects.jsonl');

    const resumed = await spawnChild('resume', workDir, { fixture: FIXTURE }).exited;
    expect(resumed, resumed.stderr).toMatchObject({ code: 0, signal: null });
    const outcome = outcomeOf(workDir, resumed.pid);
    if (!('result' in outcome) || !('result' in expected)) throw new Error('a run failed');

    // The same outcome as the uninterrupted run, task by task.
    const byTask = (result: typeof outcome.result) => [...result.tasks].sort((a, b) => a.taskId.localeCompare(b.taskId)).map(withoutTimings);
    expect(outcome.result.stop.reason).toBe('goal_achieved');
    expect(byTask(outcome.result)).toEqual(byTask(expected.result));

    // No tool whose result was recorded ran again; every tool ran at least once.
    const after = jsonLines<SideEffect>(workDir, 'side-effects.jsonl').filter((effect) => effect.pid === resumed.pid);
    for (const effect of after) expect(recorded.has(effect.toolCallId), `${effect.toolCallId} ran again`).toBe(false);
    const ran = new Set([...before, ...after].map((effect) => effect.toolCallId));
    expect([...ran].sort()).toEqual(['a-t1', 'a-t2', 'b-t1', 'b-t2', 'c-t1', 'c-t2']);
    // `plan` ended before any branch started: the resume never calls the model for it again.
    const calls = jsonLines<{ task: string; turn: number }>(workDir, 'model-calls.jsonl').filter((call) => call.pid === resumed.pid);
    expect(calls.filter((call) => call.task === 'plan the work')).toEqual([]);
  }, 60_000);
});
