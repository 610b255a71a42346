import type { WorkflowResult } from '../contracts/results.js';
import type { WorkflowRun } from '../kernel/workflow-run.js';
import { EXIT } from './exit-codes.js';
import type { RunOutput } from './run-output.js';

export interface TrapOptions {
  /** Where signal handlers are installed (the process; a fake in tests). */
  readonly signals?: Pick<NodeJS.Process, 'on' | 'off'>;
  /** Ends the process at once (the second Ctrl-C). */
  readonly exitNow?: (code: number) => never;
}

/**
 * Ctrl-C handling for one run (ADR 0034). The first SIGINT (or SIGTERM) aborts the run cleanly: the
 * in-flight model call and tools see their AbortSignal, the run ends `context_canceled` with its
 * checkpoint kept. A second one exits 130 at once. Installed before the run starts, so a Ctrl-C
 * that lands between `start()` and the first event is not lost: it is applied on `attach`.
 */
export interface InterruptTrap {
  /** The first signal received, if any. */
  readonly interrupted: NodeJS.Signals | undefined;
  attach(run: WorkflowRun, note: (message: string) => void): void;
  release(): void;
}

export function trapInterrupts(options: TrapOptions = {}): InterruptTrap {
  const signals = options.signals ?? process;
  const exitNow = options.exitNow ?? ((code: number) => process.exit(code));
  let interrupted: NodeJS.Signals | undefined;
  let attached: { run: WorkflowRun; note: (message: string) => void } | undefined;

  const abort = () => {
    if (attached === undefined || interrupted === undefined) return;
    attached.note(`${interrupted === 'SIGINT' ? 'Ctrl-C' : interrupted}: stopping the run and keeping its checkpoint (press Ctrl-C again to exit at once)`);
    attached.run.abort(`interrupted by ${interrupted}`);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted !== undefined) exitNow(EXIT.canceled);
    interrupted = signal;
    abort();
  };
  signals.on('SIGINT', onSignal);
  signals.on('SIGTERM', onSignal);

  return {
    get interrupted() {
      return interrupted;
    },
    attach(run, note) {
      attached = { run, note };
      abort();
    },
    release() {
      signals.off('SIGINT', onSignal);
      signals.off('SIGTERM', onSignal);
    },
  };
}

/** Feeds a run's events to `output` until the run ends, with Ctrl-C handled by `trap`. */
export async function watchRun(run: WorkflowRun, output: RunOutput, trap: InterruptTrap): Promise<WorkflowResult> {
  trap.attach(run, (message) => output.note(message));
  for await (const event of run) output.onEvent(event);
  const result = await run.result;
  output.finish(result);
  return result;
}
