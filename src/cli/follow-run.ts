import { DEFAULT_BOUNDS, resolveBounds } from '../contracts/bounds.js';
import type { WorkflowMetrics } from '../contracts/results.js';
import type { StopCondition } from '../contracts/stop.js';
import type { KernelOptions } from '../kernel/options.js';
import type { WorkflowRun } from '../kernel/workflow-run.js';
import type { CommandIO } from './command-io.js';
import { exitCodeFor } from './exit-codes.js';
import { colorsFor } from './format.js';
import { MEMORY_STORE } from './open-store.js';
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
  // NDJSON keeps the stop in its last line; the person watching stderr gets it in one line too.
  if (piped) output.note(stopLine(result.stop));
  for (const hint of hintsAfter(result.stop, run.runId, approvals.at(-1), follow)) output.note(hint);
  return code;
}

/** What the user can do next, each a command that runs where they are (`io.command`); none for a run kept in memory. */
function hintsAfter(stop: StopCondition, runId: string, pending: string | undefined, { opened, io, json }: FollowOptions): string[] {
  const resumable = stop.reason === 'awaiting_approval' ? pending !== undefined : resumeCanHelp(stop);
  if (opened.kind === 'memory') return resumable ? [`the run was kept in memory (--store ${MEMORY_STORE}): it ends with this process and cannot be resumed`] : [];
  const { command } = io;
  const store = opened.hint;
  const hints: string[] = [];
  if (stop.reason === 'awaiting_approval' && pending !== undefined) hints.push(`awaiting approval ${pending}: ${command} resume ${runId} --approve ${pending}   (or --reject ${pending})${store}`);
  else if (resumable) hints.push(`continue it with: ${command} resume ${runId}${store}`);
  if (!json) hints.push(`details: ${command} audit ${runId}${store}`);
  return hints;
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
