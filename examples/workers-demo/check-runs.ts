/**
 * The workers demo's verdict: for each run, from the store (the truth) and from what the worker
 * processes reported — its stop, how many `workflow_end` events it has, which workers ran which of
 * its slices, and whether any tool call whose result was recorded was executed again.
 */
import type { PostgresStore } from '../../src/index.js';
import { DEMO_TASKS, type DemoReport } from './demo-workflow.js';

export interface RunOutcome {
  readonly runId: string;
  readonly stop: string;
  readonly workflowEnds: number;
  readonly outputsAsExpected: boolean;
  /** One line per slice, in order: `worker-2 (SIGKILLed after 2 tool calls)`, `worker-1 (ended: goal_achieved)`. */
  readonly slices: readonly string[];
  readonly toolExecutions: number;
  /** Tool calls run again because the kill cut them before their result was recorded (allowed: docs/scale-out.md). */
  readonly cutByTheKill: readonly string[];
  /** Tool calls run again although their result had been recorded: a broken promise. */
  readonly recordedAndRunAgain: readonly string[];
  /** Finished exactly once: one `workflow_end`, the expected result, no recorded tool call run again. */
  readonly exactlyOnce: boolean;
}

export async function checkRuns(store: PostgresStore, runIds: readonly string[], reports: readonly DemoReport[], killedWorker: string | undefined): Promise<RunOutcome[]> {
  const outcomes: RunOutcome[] = [];
  for (const runId of runIds) {
    const result = await store.loadResult(runId);
    const workflowEnds = (await store.readEvents(runId)).filter((event) => event.type === 'workflow_end').length;
    const mine = reports.filter((report): report is Exclude<DemoReport, { event: 'submitted' | 'ready' }> => report.event !== 'submitted' && report.event !== 'ready' && report.runId === runId);
    const outputsAsExpected = result?.stop.reason === 'goal_achieved' && result.tasks.map((task) => task.output).join('|') === DEMO_TASKS.map((item) => `ok: ${item}`).join('|');

    const slices: string[] = [];
    mine.forEach((report, position) => {
      if (report.event !== 'slice_start') return;
      const later = mine.slice(position + 1);
      const nextStart = later.findIndex((other) => other.event === 'slice_start' && other.workerId === report.workerId);
      const own = (nextStart === -1 ? later : later.slice(0, nextStart)).filter((other) => other.workerId === report.workerId);
      const end = own.find((other) => other.event === 'slice_end');
      const tools = own.filter((other) => other.event === 'tool').length;
      if (end?.event === 'slice_end') slices.push(`${report.workerId} (${end.outcome}${end.stop === undefined ? '' : `: ${end.stop.reason}`})`);
      else if (report.workerId === killedWorker) slices.push(`${report.workerId} (SIGKILLed after ${tools} tool call${tools === 1 ? '' : 's'})`);
      else slices.push(`${report.workerId} (still running)`);
    });

    const byCall = new Map<string, string[]>();
    for (const report of mine) if (report.event === 'tool') byCall.set(report.toolCallId, [...(byCall.get(report.toolCallId) ?? []), report.workerId]);
    const cutByTheKill: string[] = [];
    const recordedAndRunAgain: string[] = [];
    for (const [call, workers] of byCall) {
      if (workers.length < 2) continue;
      // Only an execution in the killed worker may have been cut before its result was recorded.
      if (workers.slice(0, -1).every((worker) => worker === killedWorker)) cutByTheKill.push(call);
      else recordedAndRunAgain.push(call);
    }
    const toolExecutions = [...byCall.values()].reduce((sum, workers) => sum + workers.length, 0);
    outcomes.push({
      runId,
      stop: result?.stop.reason ?? 'no result',
      workflowEnds,
      outputsAsExpected,
      slices,
      toolExecutions,
      cutByTheKill,
      recordedAndRunAgain,
      exactlyOnce: outputsAsExpected && workflowEnds === 1 && recordedAndRunAgain.length === 0 && byCall.size === DEMO_TASKS.length,
    });
  }
  return outcomes;
}

export function outcomeLine(outcome: RunOutcome): string {
  const rerun = [
    ...(outcome.cutByTheKill.length === 0 ? [] : [`${outcome.cutByTheKill.join(', ')} cut by the kill before its result was recorded, run again`]),
    ...(outcome.recordedAndRunAgain.length === 0 ? [] : [`RECORDED AND RUN AGAIN: ${outcome.recordedAndRunAgain.join(', ')}`]),
  ];
  return [
    `  ${outcome.exactlyOnce ? '✓' : '✗'} ${outcome.runId}  ${outcome.stop}, ${outcome.workflowEnds} workflow_end, ${outcome.toolExecutions} tool executions${rerun.length === 0 ? '' : ` (${rerun.join('; ')})`}`,
    `      slices: ${outcome.slices.join(' → ')}`,
  ].join('\n');
}
