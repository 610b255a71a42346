import type { CommandIO } from '../command-io.js';
import { EXIT } from '../exit-codes.js';
import { colorReason, colorsFor, formatTimestamp } from '../format.js';
import { formatForkPoint } from '../../contracts/fork.js';
import { openCommandStore } from '../store-target.js';
import type { RunSummary } from '../../contracts/store.js';
import { recentRunFamilies } from '../../audit/run-lineage.js';

export interface RunsFlags {
  readonly store?: string;
  readonly json?: boolean;
  readonly limit?: number;
}

/**
 * `dualloop runs`: recent runs, newest first — id, name, started, stop reason, tasks done, lineage —
 * each followed by the runs its tool calls delegated to (`agentTool`), indented; `--limit` counts
 * the runs no run delegated to. `--json` is the same runs as a flat RunSummary list.
 */
export async function runsCommand(flags: RunsFlags, io: CommandIO): Promise<number> {
  let missing = false;
  const opened = await openCommandStore(
    {
      flag: flags.store,
      create: false,
      onMissing: (where) => {
        missing = true;
        if (flags.json === true) io.stdout.write('[]\n');
        else io.stderr.write(`no runs yet (no store at ${where})\n`);
      },
    },
    io,
  );
  if (opened === undefined) return missing ? EXIT.completed : EXIT.usage;
  try {
    const families = await recentRunFamilies(opened.store, flags.limit ?? 20);
    const runs = families.map((entry) => entry.run);
    if (flags.json === true) {
      io.stdout.write(`${JSON.stringify(runs, null, 2)}\n`);
      return EXIT.completed;
    }
    if (runs.length === 0) {
      io.stderr.write(`no runs yet in ${opened.where}\n`);
      return EXIT.completed;
    }
    const colors = colorsFor(io.stdout);
    const rows = families.map(({ run, depth }) => [
      // A delegated run under the run that started it, after it.
      depth === 0 ? run.runId : `  ${'   '.repeat(depth - 1)}└─ ${run.runId}`,
      run.name ?? '',
      formatTimestamp(run.createdAt),
      // An error names its code (worker_retries_exhausted, lease_lost, …): the detail is in `audit`.
      run.stop === undefined ? 'running or interrupted' : run.stop.reason === 'error' && run.stop.code !== undefined ? `error (${run.stop.code})` : run.stop.reason,
      // Plan strategies run plan steps, not the tasks the run was started with: no total to show.
      run.tasksDone > run.tasksTotal ? `${run.tasksDone}` : `${run.tasksDone}/${run.tasksTotal}`,
      lineage(run),
    ]);
    const header = ['RUN', 'NAME', 'STARTED', 'STOP', 'TASKS', rows.some((row) => row[5] !== '') ? 'LINEAGE' : ''];
    const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
    const line = (cells: readonly string[], paint: (cell: string, column: number) => string = (cell) => cell) =>
      cells.map((cell, column) => paint(cell.padEnd(widths[column]!), column)).join('  ').trimEnd();
    io.stdout.write(`${colors.dim(line(header))}\n`);
    runs.forEach((run, index) => {
      io.stdout.write(`${line(rows[index]!, (cell, column) => (column === 3 && run.stop !== undefined ? cell.replace(run.stop.reason, colorReason(run.stop.reason, colors)) : cell))}\n`);
    });
    return EXIT.completed;
  } finally {
    await opened.close();
  }
}

/** Where a run comes from: the run it was forked from, the recorded run an eval replays, or the tool call that delegated to it. */
function lineage(run: RunSummary): string {
  if (run.forkOf !== undefined) return `forked from ${run.forkOf.runId} at ${formatForkPoint(run.forkOf.at)}`;
  if (run.evalOf !== undefined) return `eval of ${run.evalOf.runId} (suite ${run.evalOf.suite})`;
  return run.parent === undefined ? '' : `tool call ${run.parent.toolCallId}`;
}
