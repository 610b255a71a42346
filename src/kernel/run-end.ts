/**
 * How a run ends (launchRun's last phase), once its workflow actor is done: the result as the
 * store keeps it, the `workflow_end` event, the result saved under the lease, the lease released
 * and the run's tool sources stopped — in that order, before the caller gets the result.
 */
import type { WorkflowResult } from '../contracts/results.js';
import type { CheckpointStore } from '../contracts/store.js';
import type { WorkflowOutput } from '../contracts/workflow-protocol.js';
import { describeError } from '../errors.js';
import type { EventSink } from '../events/event-sink.js';
import type { RunTools } from '../tools/run-tools.js';
import type { ToolResultRecordings } from '../tools/tool-result-recordings.js';
import type { RunFence } from './fenced-store.js';
import type { KernelDeps } from './kernel-deps.js';
import type { LaunchPlan } from './launch-plan.js';

export interface RunEnding {
  readonly deps: KernelDeps;
  readonly plan: LaunchPlan;
  /** The run's fenced store. */
  readonly store: CheckpointStore;
  readonly sink: EventSink;
  readonly tools: RunTools;
  /** Tool results still being written: the run ends once they committed or failed. */
  readonly recordings: ToolResultRecordings;
  readonly startedAt: number;
  readonly fence: RunFence;
  /** A worker handed the run back (ADR/0201). */
  readonly suspended: boolean;
  /** The store never recorded the run: there is nothing to complete in it. */
  readonly unrecorded: boolean;
  readonly releaseLease: () => Promise<void>;
  /** Drops the run from the kernel's registry and closes its event stream. */
  readonly forget: () => void;
}

export async function endRun(output: WorkflowOutput, ending: RunEnding): Promise<WorkflowResult> {
  const { deps, plan, fence, sink, store } = ending;
  // Nothing of the run is still being written once it ended. A tool result that could not be
  // recorded failed with the write that carried it (the turn's checkpoint, the result), which
  // reports it; a result written on its own is in the checkpoint that followed it.
  await ending.recordings.committed()?.catch(() => undefined);
  // The caller gets the result as the store keeps it: the same, resumed or not (ADR/0100).
  const result: WorkflowResult = deps.redactor.value({
    runId: plan.runId,
    // However the stop reached the machines (a task's halt wraps it), a lost lease ends the run
    // here with exactly that: another process holds the run now.
    stop: fence.lost && output.stop.reason === 'error' ? { ...output.stop, ...(ending.suspended ? { code: 'run_suspended', detail: 'suspended' } : { code: 'lease_lost', detail: 'lease_lost' }) } : output.stop,
    tasks: output.results,
    metrics: { ...output.metrics, runtimeMs: Math.max(output.metrics.runtimeMs, plan.progress.elapsedMs + (deps.clock.now() - ending.startedAt)) },
  });
  sink.emit({ type: 'workflow_end', stop: result.stop, metrics: result.metrics });
  try {
    if (!fence.lost && !ending.unrecorded) await store.saveResult(result);
  } catch (error) {
    sink.emit({ type: 'error', scope: 'checkpoint', message: `saving the final result failed: ${describeError(error)}` });
  }
  // Renewals stop whatever happened to the result (a store that is down must not keep the run
  // held by this process); a release that fails leaves the lease to expire.
  await ending.releaseLease().catch(() => undefined);
  // The run's tool sources (MCP servers) stop before its result is given (ADR/0143).
  await ending.tools.close();
  ending.forget();
  return result;
}
