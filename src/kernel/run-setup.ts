/**
 * What a run is made of before its workflow actor starts (launchRun's first phase): the services
 * its machines share (`RunRuntime`) and the workflow machine's input.
 */
import { parallelTasksOf, type OuterBounds } from '../contracts/bounds.js';
import type { KernelEvent } from '../contracts/events.js';
import type { CheckpointStore } from '../contracts/store.js';
import type { WorkflowInput, WorkflowProgress } from '../contracts/workflow-protocol.js';
import { CheckpointWriter } from '../checkpoint/checkpoint-writer.js';
import type { EventSink } from '../events/event-sink.js';
import { isGraph } from '../graph/task-graph.js';
import type { RunTools } from '../tools/run-tools.js';
import { ToolResultRecordings } from '../tools/tool-result-recordings.js';
import { CallIndexes } from './call-indexes.js';
import type { KernelDeps } from './kernel-deps.js';
import type { LaunchPlan } from './launch-plan.js';
import { rateWindowOf } from './rate-windows.js';
import type { RunRuntime } from './run-runtime.js';
import { SpendLedger } from './spend-ledger.js';
import { ToolStartLedger } from './tool-start-ledger.js';

export interface RuntimeParts {
  readonly deps: KernelDeps;
  readonly plan: LaunchPlan;
  /** The run's fenced store. */
  readonly store: CheckpointStore;
  readonly sink: EventSink;
  readonly tools: RunTools;
  /** Aborted when the run ends. */
  readonly signal: AbortSignal;
  readonly startedAt: number;
  readonly outerBounds: OuterBounds;
  /** Hands a delegated child's event to the run's own stream. */
  readonly relay: (event: KernelEvent) => void;
  readonly ended: () => boolean;
  readonly confirmLease: () => Promise<void>;
}

export function runRuntimeFor(parts: RuntimeParts): RunRuntime {
  const { deps, plan, store, sink, outerBounds, startedAt } = parts;
  const { runId } = plan;
  const clock = deps.clock;
  return {
    runId,
    events: sink,
    tasks: plan.tasks,
    approvals: plan.approvals,
    resumed: plan.resumed,
    store,
    recordings: new ToolResultRecordings(),
    signal: parts.signal,
    checkpoints: new CheckpointWriter({
      runId,
      store,
      now: () => clock.now(),
      lastEventSeq: () => sink.lastSeq,
      progress: plan.progress,
      graph: isGraph(plan.tasks),
      ...(plan.checkpoint === undefined ? {} : { base: plan.checkpoint }),
    }),
    tools: parts.tools,
    toolStarts: new ToolStartLedger(),
    spend: new SpendLedger(plan.progress, plan.delegation?.parentSpend),
    rateWindow: (model, limit) => rateWindowOf(model, limit, deps),
    callIndexes: new CallIndexes(restoredCallIndex(plan.progress)),
    outerBounds,
    sessionDeadlineAt: startedAt + Math.max(0, outerBounds.maxSessionRuntimeMs - plan.progress.elapsedMs),
    depth: plan.delegation?.depth ?? 0,
    relay: (event) => {
      if (!parts.ended()) parts.relay({ ...event, path: [runId, ...(event.path ?? [event.runId])] });
    },
    confirmLease: parts.confirmLease,
    // A service that reports after the run ended (a gate or tool that ignored its signal) is ignored.
    emit: (body) => {
      if (!parts.ended()) sink.emit(body);
    },
  };
}

/** Where a run's model call indexes continue: past every call its progress and restored tasks counted. */
function restoredCallIndex(progress: WorkflowProgress): number {
  const restored = progress.active !== undefined ? [progress.active] : (progress.branches ?? []);
  return Math.max(progress.modelCallIndex, ...restored.map((active) => active.point.modelCallIndex));
}

/** The workflow machine's input: the run's bounds and settings, where it starts from. */
export function workflowInput(deps: KernelDeps, plan: LaunchPlan, bounds: OuterBounds, startedAt: number): WorkflowInput {
  const graph = isGraph(plan.tasks);
  return {
    runId: plan.runId,
    bounds,
    settings: {
      onTaskStop: deps.loop.onTaskStop,
      turn: { wrapUpOnBound: deps.loop.wrapUpOnBound, steeringMode: deps.context.steeringMode, followUpMode: deps.context.followUpMode },
      graph,
      maxParallelTasks: graph ? parallelTasksOf(bounds) : 1,
    },
    progress: plan.progress,
    startedAt,
  };
}
