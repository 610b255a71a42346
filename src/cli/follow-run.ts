import { DEFAULT_BOUNDS, resolveBounds } from '../contracts/bounds.js';
import type { WorkflowMetrics } from '../contracts/results.js';
import type { KernelOptions } from '../kernel/options.js';
import type { WorkflowRun } from '../kernel/workflow-run.js';
import type { CommandIO } from './command-io.js';
import { exitCodeFor } from './exit-codes.js';
import { colorsFor } from './format.js';
import type { CommandStore } from './store-target.js';
import { ndjsonOutput, type RunOutput } from './run-output.js';
import { resumeCanHelp, stopLine } from './stop-advice.js';
import { watchRun, type InterruptTrap } from './watch-run.js';

export interface FollowOptions {
  readonly run: WorkflowRun;
  readonly opened: CommandStore;
  readonly options: KernelOptions;
  readonly name: string;
  /** NDJSON even on a terminal. */
  readonly json: boolean;
  readonly io: CommandIO;
  /** Ctrl-C handling, installed before the run started. */
  readonly trap: InterruptTrap;
  /** What a resumed run had done before this process. */
  readonly before?: { readonly metrics: WorkflowMetrics; readonly tasksDone: number };
}

/** Shows a run (live view on a terminal, NDJSON otherwise) until it ends; returns the exit code. */
export async function followRun(follow: FollowOptions): Promise<number> {
  const { run, opened, json, io, trap } = follow;
  const approvals: string[] = [];
  const piped = json || io.stdout.isTTY !== true;
  const output = await outputFor(follow, piped);
  const result = await watchRun(run, {
    onEvent(event) {
      if (event.type === 'policy_decision' && event.decision === 'require_approval') approvals.push(event.approvalId ?? event.toolCallId ?? `task:${event.taskId}`);
      output.onEvent(event);
    },
    finish: (value) => output.finish(value),
    note: (message) => output.note(message),
  }, trap);
  const code = exitCodeFor(result.stop.reason);
  const store = opened.hint;
  // NDJSON keeps the stop in its last line; the person watching stderr gets it in one line too.
  if (piped) output.note(stopLine(result.stop));
  if (result.stop.reason === 'awaiting_approval' && approvals.length > 0) {
    const pending = approvals[approvals.length - 1]!;
    output.note(`awaiting approval ${pending}: dualloop resume ${run.runId} --approve ${pending}   (or --reject ${pending})${store}`);
  } else if (result.stop.reason !== 'awaiting_approval' && resumeCanHelp(result.stop)) {
    output.note(`continue it with: dualloop resume ${run.runId}${store}`);
  }
  if (!json) output.note(`details: dualloop audit ${run.runId}${store}`);
  return code;
}

async function outputFor(follow: FollowOptions, piped: boolean): Promise<RunOutput> {
  const { io, run, opened, options } = follow;
  if (piped) return ndjsonOutput(io.stdout, io.stderr);
  const record = await opened.store.getRun(run.runId);
  const { createLiveView } = await import('./live-view/live-view.js');
  return createLiveView({
    stream: io.stdout,
    colors: colorsFor(io.stdout),
    name: follow.name,
    runId: run.runId,
    actor: run.actor,
    tasks: record?.tasks ?? [],
    outer: resolveBounds(DEFAULT_BOUNDS, options.bounds).outer,
    ...(follow.before === undefined ? {} : { before: follow.before }),
  });
}
