import { StopReason } from 'dualloop';
import type { CodeBlock } from './markdown-blocks.js';

/*
 * What a docs block that runs a workflow must print (ADR 0412): how it stopped, as
 * `${stop.reason} — ${stop.detail}` on one line. A reader who pastes the block and runs it
 * without a key, offline or against the wrong server then sees why it stopped, not only a reason
 * such as `error`. The rule is read twice: in the source, so a `no-run` block keeps it too, and in
 * what a runnable block printed, so the line is really reached.
 *
 * A block runs a workflow when it calls `runWorkflow`, `createKernel` or an engine (`createEngine`,
 * `loopEngine`). Every other block is exempt: declarations, a model's options, a run handed to a
 * worker queue (`submitRun`), whose stop another process reports.
 */

const RUNS_A_WORKFLOW = /\b(?:runWorkflow|createKernel|createEngine|loopEngine)\(/;
/** A template that prints a stop's reason, ` — `, then its detail (`stop` or an engine's `stopReason`/`stopDetail`). */
const PRINTS_REASON_AND_DETAIL = /\$\{[^}]*(?:stop\.reason|stopReason)\} — \$\{[^}]*(?:stop\.detail|stopDetail)\}/;
/** A printed stop: a reason of the closed enum, ` — `, and a detail that is not empty. */
const STOP_LINE = new RegExp(`\\b(?:${StopReason.options.join('|')}) — \\S`);

export function runsAWorkflow(block: CodeBlock): boolean {
  return RUNS_A_WORKFLOW.test(block.code);
}

/** Whether the source prints its stop as `${….stop.reason} — ${….stop.detail}`. */
export function printsItsStop(block: CodeBlock): boolean {
  return PRINTS_REASON_AND_DETAIL.test(block.code);
}

/** The lines of `stdout` that name a stop reason and its detail. */
export function stopLines(stdout: string): string[] {
  return stdout.split('\n').filter((line) => STOP_LINE.test(line));
}

/**
 * A block that writes a SQLite file keeps state in its folder: it must run again there, as a
 * reader who runs it twice would (a fixed run id fails the second time with `run_exists`).
 */
export function keepsAStoreFile(block: CodeBlock): boolean {
  return /\bsqliteStore\(\{\s*path:\s*'(?!:memory:')/.test(block.code);
}
