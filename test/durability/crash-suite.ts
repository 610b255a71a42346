import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KernelEvent, WorkflowResult } from 'dualloop';
import {
  assertBuilt,
  jsonLines,
  milestones,
  newWorkDir,
  outcomeOf,
  seededRandom,
  spawnChild,
  withoutTimings,
  type CrashStore,
  type KillPlan,
} from './crash-harness.js';

/*
 * The crash test (issue 5; on Postgres too, issue 18): a child process runs a deterministic
 * three-task workflow with tools on the given store and is SIGKILLed at one of 20 points chosen from fixed seeds — during a model
 * call, during a tool, inside a checkpoint write's transaction, or at a moment after the start —
 * then another process resumes the run. The resumed run must end exactly like an uninterrupted
 * one, without repeating a finished task's model calls, a recorded tool, or losing an event.
 */

const MODEL_CALLS = 7;
const TOOL_CALLS = 5;
const CHECKPOINTS = 7;

function planFor(seed: number): KillPlan {
  const random = seededRandom(seed);
  const pick = (count: number) => 1 + Math.floor(random() * count);
  switch (seed % 4) {
    case 0:
      return { kind: 'model', occurrence: pick(MODEL_CALLS), delayUs: Math.floor(random() * 20_000) };
    case 1:
      return { kind: 'tool', occurrence: pick(TOOL_CALLS), delayUs: Math.floor(random() * 15_000) };
    case 2:
      return { kind: 'checkpoint', occurrence: pick(CHECKPOINTS), at: (['insert', 'commit', 'committed'] as const)[Math.floor(random() * 3)]! };
    default:
      return { kind: 'time', afterMs: 5 + Math.floor(random() * 245) };
  }
}

const SEEDS = Array.from({ length: 20 }, (_, index) => 1001 + index);

/** The crash test against one store; `cleanUp` removes what the store kept beside the work dirs. */
export function describeCrashSuite(store: CrashStore, cleanUp: (workDirs: readonly string[]) => Promise<void> = async () => undefined): void {
  const workDirs: string[] = [];
  let baseline: { result: WorkflowResult; events: readonly KernelEvent[] };

  beforeAll(async () => {
    assertBuilt();
    const workDir = newWorkDir();
    workDirs.push(workDir);
    const child = spawnChild('start', workDir, { store });
    const exit = await child.exited;
    expect(exit, exit.stderr).toMatchObject({ code: 0, signal: null });
    const outcome = outcomeOf(workDir, exit.pid);
    if (!('result' in outcome)) throw new Error(`the uninterrupted run failed: ${outcome.error.message}`);
    baseline = { result: outcome.result, events: (await store.state(workDir)).events };
    expect(baseline.result.stop.reason).toBe('goal_achieved');
    expect(jsonLines(workDir, 'model-calls.jsonl')).toHaveLength(MODEL_CALLS);
    expect(jsonLines(workDir, 'side-effects.jsonl')).toHaveLength(TOOL_CALLS);
  }, 60_000);

  afterAll(async () => {
    await cleanUp(workDirs);
    for (const workDir of workDirs) rmSync(workDir, { recursive: true, force: true });
  });

  describe(`${store.name}: a run killed with SIGKILL and resumed in another process`, () => {
    it.concurrent.each(SEEDS.map((seed) => [seed, planFor(seed)] as const))('seed %i: %j', async (_seed, plan) => {
      const workDir = newWorkDir();
      workDirs.push(workDir);

      // Act 1: the run, killed.
      const killed = await spawnChild('start', workDir, { plan, store }).exited;
      expect(killed.signal, `the child was not killed: ${killed.stderr}`).toBe('SIGKILL');
      const atKill = await store.state(workDir);
      if (plan.kind === 'checkpoint') {
        // Killed inside the planned checkpoint write, at the planned statement of its transaction.
        const markers = jsonLines<{ armed?: number; done?: number; killedAt?: string }>(workDir, 'checkpoints.jsonl');
        expect(markers.filter((marker) => marker.armed !== undefined)).toHaveLength(plan.occurrence);
        expect(markers.filter((marker) => marker.done !== undefined)).toHaveLength(plan.occurrence - 1);
        expect(markers.at(-1)).toMatchObject({ killedAt: plan.at });
      }

      // Act 2: the resume, in a fresh process.
      const resumed = await spawnChild('resume', workDir, { store }).exited;
      expect(resumed, resumed.stderr).toMatchObject({ code: 0, signal: null });
      const outcome = outcomeOf(workDir, resumed.pid);
      if (!('result' in outcome)) throw new Error(`resume refused: ${outcome.error.code}: ${outcome.error.message}`);
      const final = await store.state(workDir);

      // The same result as the uninterrupted run (clock readings aside), and it is the one stored.
      expect(withoutTimings(outcome.result)).toEqual(withoutTimings(baseline.result));

      // No model call before the last checkpoint was made again; no finished task's call at all.
      const calls = jsonLines<{ index: number; task: string }>(workDir, 'model-calls.jsonl');
      const resumedCalls = calls.filter((call) => call.pid === resumed.pid);
      const continueFrom = atKill.checkpoint?.modelCallIndex ?? 0;
      for (const call of resumedCalls) expect(call.index, `model call ${call.index} repeated`).toBeGreaterThanOrEqual(continueFrom);
      const finishedDescriptions = baseline.result.tasks.filter((task) => atKill.checkpoint?.finishedTasks.includes(task.taskId)).map((task) => task.description);
      expect(resumedCalls.filter((call) => finishedDescriptions.includes(call.task))).toEqual([]);
      expect(new Set(calls.map((call) => call.index))).toEqual(new Set(Array.from({ length: MODEL_CALLS }, (_, index) => index)));

      // No recorded tool ran twice; every tool ran, at most once more than recorded.
      const effects = jsonLines<{ toolCallId: string }>(workDir, 'side-effects.jsonl');
      const runs = (id: string) => effects.filter((effect) => effect.toolCallId === id).length;
      for (const id of atKill.toolCallIds) expect(runs(id), `recorded tool call ${id} executed again`).toBe(1);
      for (const id of final.toolCallIds) expect(runs(id)).toBeGreaterThanOrEqual(1);
      for (const id of final.toolCallIds) expect(runs(id)).toBeLessThanOrEqual(2);
      expect(final.toolCallIds).toHaveLength(TOOL_CALLS);

      // No event lost: what the killed process logged is kept as it was, it holds everything up to
      // its last checkpoint, it is a prefix of the uninterrupted log, seqs have no gap, and every
      // milestone of the uninterrupted run is in the final log.
      expect(final.events.slice(0, atKill.events.length)).toEqual(atKill.events);
      expect(atKill.events.length).toBeGreaterThanOrEqual(atKill.checkpoint?.eventSeq ?? 0);
      // `checkpoint_saved` is emitted when the store acknowledges the write: with an asynchronous
      // store its place among the next turn's events depends on timing, so it is left out here.
      const types = (events: readonly KernelEvent[]) => events.map((event) => event.type).filter((type) => type !== 'checkpoint_saved');
      expect(types(atKill.events)).toEqual(types(baseline.events.slice(0, atKill.events.length)));
      expect(final.events.map((event) => event.seq)).toEqual(final.events.map((_, index) => index + 1));
      const finalMilestones = new Set(milestones(final.events));
      for (const milestone of milestones(baseline.events)) expect(finalMilestones, `lost ${milestone}`).toContain(milestone);
      expect(final.events.at(-1)).toMatchObject({ type: 'workflow_end', stop: { reason: 'goal_achieved' } });
    }, 90_000);
  });
}
