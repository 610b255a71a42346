import type { RunErrorCode } from '../../contracts/error-codes.js';
import { readCheckpoint } from '../../checkpoint/read-checkpoint.js';
import type { ForkOptions } from '../../contracts/fork.js';
import { describeError, isDualloopError, isDualloopErrorOf } from '../../errors.js';
import { boundOverridesOf, type BoundOverrides } from '../../manifest/bound-overrides.js';
import { complain, type CommandIO } from '../command-io.js';
import { EXIT } from '../exit-codes.js';
import { followRun } from '../follow-run.js';
import { forkStoredRun } from '../fork-run.js';
import { openCommandStore } from '../store-target.js';
import { reportIssues } from '../report-issues.js';
import { trapInterrupts } from '../watch-run.js';

export interface ForkFlags extends BoundOverrides {
  /** `3`, `3:6`, `security` or `security:2`. */
  readonly at: string;
  readonly message?: string;
  readonly store?: string;
  readonly json?: boolean;
  readonly runId?: string;
  /** The manifest to build the kernel from, when the store does not know the source's. */
  readonly manifest?: string;
  /** Fork although the workflow changed since the source started. */
  readonly acceptWorkflowChange?: boolean;
}

/** Errors that mean "this fork cannot be made here" rather than "something broke". */
const USAGE_CODES: ReadonlySet<string> = new Set<RunErrorCode>(['run_not_found', 'fork_point_not_found', 'run_exists', 'workflow_changed']);

const NUMBERED = /^([1-9]\d{0,8})(?::([1-9]\d{0,8}))?$/;
const TURN = /^[1-9]\d{0,8}$/;

/**
 * `3` → before task 3; `3:6` → before turn 6 of task 3; `security` → before the task with that id
 * (in a graph: it and everything downstream run again); `security:2` → before its turn 2. A
 * number is always a position; a suffix `:<digits>` is always a turn.
 */
export function parseForkPoint(text: string): ForkOptions['at'] | undefined {
  const point = text.trim();
  const numbered = NUMBERED.exec(point);
  if (numbered !== null) return numbered[2] === undefined ? { task: Number(numbered[1]) } : { task: Number(numbered[1]), turn: Number(numbered[2]) };
  if (point === '' || /^\d+(:|$)/.test(point)) return undefined;
  const colon = point.lastIndexOf(':');
  const suffix = colon === -1 ? '' : point.slice(colon + 1);
  if (colon === -1 || !/^\d+$/.test(suffix)) return { task: point };
  return TURN.test(suffix) && colon > 0 ? { task: point.slice(0, colon), turn: Number(suffix) } : undefined;
}

function shownPoint(at: ForkOptions['at']): string {
  return at.turn === undefined ? String(at.task) : `${at.task}:${at.turn}`;
}

/**
 * `dualloop fork <runId> --at <task>[:<turn>]`: forks the run at the point (docs/time-travel.md)
 * and follows the new run like `run` does — same live view, same exit codes.
 */
export async function forkCommand(sourceRunId: string, flags: ForkFlags, io: CommandIO): Promise<number> {
  const at = parseForkPoint(flags.at);
  if (at === undefined) {
    complain(io, `--at ${flags.at}: expected <task>[:<turn>], the task by its number counted from 1 or by its id, the turn counted from 1 (e.g. 3, 3:6, review or review:2)`);
    return EXIT.usage;
  }
  const opened = await openCommandStore({ flag: flags.store, create: false }, io);
  if (opened === undefined) return EXIT.usage;
  const trap = trapInterrupts();
  try {
    let forked;
    try {
      forked = await forkStoredRun(
        opened,
        {
          sourceRunId,
          at,
          overrides: boundOverridesOf(flags),
          ...(flags.message === undefined ? {} : { message: flags.message }),
          ...(flags.runId === undefined ? {} : { runId: flags.runId }),
          ...(flags.manifest === undefined ? {} : { manifest: flags.manifest }),
          ...(flags.acceptWorkflowChange === true ? { acceptChange: true } : {}),
        },
        io.cwd,
      );
    } catch (error) {
      if (isDualloopError(error, 'config_invalid')) {
        complain(io, error.issues.map((issue) => `${cliName(issue.path)}: ${issue.message}`).join('\n'));
        return EXIT.usage;
      }
      complain(io, `cannot fork ${sourceRunId} at ${shownPoint(at)}: ${describeError(error)}`);
      return isDualloopErrorOf(error, 'run') && USAGE_CODES.has(error.code) ? EXIT.usage : EXIT.error;
    }
    if (!forked.ok) {
      if (forked.issues !== undefined) reportIssues(io.stderr, forked.issues);
      else complain(io, forked.message ?? 'cannot fork');
      // As for run: an MCP block that cannot be used (an unset ${VAR}) is an error, not a usage problem.
      return forked.problem === 'mcp' ? EXIT.error : EXIT.usage;
    }
    const { run, loaded, options } = forked;
    if (flags.json !== true) io.stderr.write(`forked ${sourceRunId} at ${shownPoint(at)} as ${run.runId}\n`);
    // The live view's gauges start from the state at the point: the fork's first checkpoint.
    const point = await readCheckpoint(opened.store, run.runId);
    const before = point === undefined ? undefined : { metrics: point.progress.metrics, tasksDone: point.progress.results.length };
    return await followRun({ run, opened, options, name: loaded.manifest.name, json: flags.json === true, io, trap, ...(before === undefined ? {} : { before }) });
  } finally {
    trap.release();
    await opened.close();
  }
}

function cliName(path: string): string {
  if (path === 'runId') return '--run-id';
  if (path === 'edit.message') return '--message';
  if (path.startsWith('at')) return '--at';
  return path;
}

