import type { KernelEvent } from '../contracts/events.js';
import type { StopCondition } from '../contracts/stop.js';
import type { CheckpointStore } from '../contracts/store.js';
import type { CommandIO } from './command-io.js';
import { exitCodeFor, EXIT } from './exit-codes.js';
import { ndjsonOutput } from './run-output.js';
import { stopLine } from './stop-advice.js';
import { endedByTheStore } from '../workers/slice-stops.js';

/** How often the store is read for new events of the followed run. */
const POLL_MS = 250;

/**
 * `dualloop submit --wait`: follows a run some worker executes, from the store's event log
 * (NDJSON on stdout with `--json` or when piped, one line per task and stop on a terminal),
 * until a slice ends it: `workflow_end` that is not a drain (a drained slice writes none) nor a
 * store failure (a worker retries that slice, ADR/0321).
 * Returns the exit code `run` would give; 130 when interrupted (the run goes on).
 */
export async function followStoredRun(store: CheckpointStore, runId: string, options: { readonly json: boolean; readonly io: CommandIO }): Promise<number> {
  const { io } = options;
  const piped = options.json || io.stdout.isTTY !== true;
  const ndjson = ndjsonOutput(io.stdout, io.stderr);
  let interrupted = false;
  const onSignal = () => (interrupted = true);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    let after = 0;
    for (;;) {
      const events = await store.readEvents(runId, after);
      for (const event of events) {
        after = event.seq;
        if (piped) ndjson.onEvent(event);
        else describe(event, io.stdout);
        if (event.type === 'workflow_end' && endedByTheStore(event.stop)) io.stderr.write(`${stopLine(event.stop)}\nthe store failed under the run; a worker retries it from its last checkpoint\n`);
        else if (event.type === 'workflow_end') return ended(event.stop, runId, io);
      }
      if (interrupted) {
        io.stderr.write(`stopped following run ${runId}; it goes on (${io.command} cancel ${runId} --store … stops it)\n`);
        return EXIT.canceled;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

function ended(stop: StopCondition, runId: string, io: CommandIO): number {
  io.stderr.write(`${stopLine(stop)}\n`);
  if (stop.reason === 'awaiting_approval') io.stderr.write(`answer it with: ${io.command} approve ${runId} --allow|--deny --store …; a worker then continues it\n`);
  return exitCodeFor(stop.reason);
}

/** One human line per milestone, for a terminal. */
function describe(event: KernelEvent, out: NodeJS.WritableStream): void {
  if (event.type === 'workflow_start') out.write(`${event.resumed ? 'resumed' : 'started'} on a worker\n`);
  else if (event.type === 'task_start') out.write(`▸ ${event.taskId}: ${event.description}\n`);
  else if (event.type === 'turn_end') out.write(`  turn ${event.turn}${event.result.toolCalls.length > 0 ? `: ${event.result.toolCalls.map((call) => call.name).join(', ')}` : ''}\n`);
  else if (event.type === 'task_end') out.write(`  ${event.taskId} ${event.stop.reason}\n`);
}
