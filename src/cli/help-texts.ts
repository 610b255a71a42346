/**
 * The options and help texts several commands share (docs/cli.md). Each command's help ends with
 * the exit codes that command can give; an option a command requires says so at the start of its
 * description and in the command's usage line (commander's help does not mark it).
 */
import { type Command, Option } from 'commander';
import { positiveInteger, positiveNumber, portNumber } from './argument-parsers.js';
import { DEFAULT_STORE_PATH, MEMORY_STORE } from './open-store.js';

type ExitCodeRow = readonly [code: number, meaning: string];

/** The codes of a command that runs a workflow and follows it to its end: run, resume, fork. */
const RUN_ENDS: readonly ExitCodeRow[] = [
  [0, 'the run completed (planner_stopped, goal_achieved, tool_terminated)'],
  [2, 'a bound stopped it (max_turns, max_tool_calls, max_runtime, max_workflow_steps,\nmax_session_runtime, max_replans, budget_exhausted, loop_detected)'],
  [3, 'policy_denied or awaiting_approval'],
  [4, 'error'],
];
const CANCELED: ExitCodeRow = [130, 'canceled (Ctrl-C, SIGTERM)'];
const STORE_FAILED: ExitCodeRow = [4, 'the store cannot be opened or read'];

/** `Exit codes:` and one line per code, for `addHelpText('after', …)`. */
export function exitCodesHelp(rows: readonly ExitCodeRow[]): string {
  const lines = rows.map(([code, meaning]) => `  ${String(code).padEnd(5)}${meaning.replaceAll('\n', `\n${' '.repeat(7)}`)}`);
  return `\nExit codes:\n${lines.join('\n')}`;
}

/** Each command's exit codes (DESIGN.md section 8), by command name; `dualloop` is the program's own help. */
export const EXIT_CODES = {
  dualloop: exitCodesHelp([...RUN_ENDS, [64, 'invalid manifest or arguments'], CANCELED]),
  run: exitCodesHelp([...RUN_ENDS, [64, 'invalid manifest or arguments'], CANCELED]),
  resume: exitCodesHelp([...RUN_ENDS, [64, 'invalid arguments or manifest; no such run, or one that cannot be resumed'], CANCELED]),
  fork: exitCodesHelp([...RUN_ENDS, [64, 'invalid arguments or manifest; no such run, or no such point in it'], CANCELED]),
  runs: exitCodesHelp([[0, 'the runs are listed (none when there is no store yet)'], STORE_FAILED, [64, 'invalid arguments']]),
  audit: exitCodesHelp([[0, 'the audit is printed'], STORE_FAILED, [64, 'invalid arguments; no such store or run']]),
  view: exitCodesHelp([[0, 'the viewer was stopped with Ctrl-C'], [4, 'the viewer cannot listen, or the store cannot be opened'], [64, 'invalid arguments; no such store or run']]),
  control: exitCodesHelp([[0, 'the command was sent'], STORE_FAILED, [64, 'invalid arguments; the run cannot take it (unknown or finished run, no such pending approval)']]),
  init: exitCodesHelp([[0, 'the starter files are written'], [4, 'they cannot be written'], [64, 'invalid arguments; a starter file exists already (--force overwrites)']]),
  eval: exitCodesHelp([
    [0, 'every case was evaluated and every --fail-under gate passed'],
    [1, "a --fail-under gate failed: a scorer's mean is below its threshold"],
    [2, "the suite's budget (--max-cost-usd) ran out: the cases not started were skipped"],
    [4, 'a case could not run (a task list the kernel refuses), or the store failed'],
    [64, 'invalid suite, manifest or arguments; a case names a run the store does not hold'],
    CANCELED,
  ]),
  validate: exitCodesHelp([[0, 'the manifest is valid'], [64, 'it is not: every problem is listed']]),
  submit: exitCodesHelp([
    [0, 'the run is queued; with --wait, it completed'],
    [2, 'with --wait: a bound stopped it'],
    [3, 'with --wait: policy_denied or awaiting_approval'],
    [4, 'with --wait: error; the store cannot be reached'],
    [64, 'invalid manifest or arguments, a store that is not postgres://'],
    [130, 'with --wait: you stopped following (the run goes on)'],
  ]),
  worker: exitCodesHelp([[0, 'stopped by SIGTERM or Ctrl-C, after handing its runs back'], [4, 'the store cannot be reached'], [64, 'invalid manifests or arguments']]),
} as const;

const STORE_KINDS = 'SQLite file of the runs, or a postgres:// URL (?schema=NAME; the password may come from PGPASSWORD)';

/** `--store` of `run`, the only command that creates a store, and the only one that can keep a run in memory. */
export const runStoreOption = () =>
  new Option('--store <path|url|:memory:>', `${STORE_KINDS}; ${MEMORY_STORE} keeps the run in this process only, in no file (default: the manifest's store.path, else ${DEFAULT_STORE_PATH})`);

/** `--store` of the commands that read a store `run` wrote. */
export const storeOption = () => new Option('--store <path|url>', `${STORE_KINDS} (default: ${DEFAULT_STORE_PATH})`);

/** `--store` of submit and worker: runs and their queue live in Postgres. */
export const queueStoreOption = () => new Option('--store <url>', 'required: postgres:// URL of the runs and their queue (?schema=NAME&queueSchema=NAME)').makeOptionMandatory();

export const hostOption = () => new Option('--host <host>', 'the address to listen on (default 127.0.0.1: this machine only)');
export const portOption = () => new Option('--port <n>', "the viewer's port (default: a free one)").argParser(portNumber);

/** The bound options of run and fork; `maxTurnsNote` adds to --max-turns' description. */
export function addBoundOptions(command: Command, maxTurnsNote = ''): Command {
  return command
    .option('--max-turns <n>', `turns per task (bounds.inner.maxTurns)${maxTurnsNote}`, positiveInteger)
    .option('--max-tool-calls <n>', 'tool calls per task (bounds.inner.maxToolCalls)', positiveInteger)
    .option('--max-runtime <ms>', 'runtime per task, milliseconds (bounds.inner.maxRuntimeMs)', positiveInteger)
    .option('--max-steps <n>', 'tasks per run (bounds.outer.maxWorkflowSteps)', positiveInteger)
    .option('--max-session-runtime <ms>', 'runtime of the run, milliseconds (bounds.outer.maxSessionRuntimeMs)', positiveInteger)
    .option('--max-tokens <n>', 'token budget of the run (bounds.outer.maxTokens)', positiveInteger)
    .option('--max-cost <usd>', 'cost budget of the run in USD (bounds.outer.maxCostUsd)', positiveNumber)
    .option('--max-parallel-tasks <n>', 'most tasks of a graph running at once (bounds.outer.maxParallelTasks)', positiveInteger);
}
