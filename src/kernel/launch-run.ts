import { createActor } from 'xstate';
import { isTaskOf } from '../contracts/task-id.js';
import type { ErrorScope, KernelEvent } from '../contracts/events.js';
import { errorCodeOfScope } from '../contracts/error-scopes.js';
import type { WorkflowResult } from '../contracts/results.js';
import type { StopCondition } from '../contracts/stop.js';
import type { WorkflowOutput } from '../contracts/workflow-protocol.js';
import { describeError } from '../errors.js';
import { guardedListener, loggerListener, storeListener } from '../events/event-listeners.js';
import { EventSink, type EventListener } from '../events/event-sink.js';
import { EventStream } from '../events/event-stream.js';
import { RUN_ENDED } from './abort-reasons.js';
import { EventRedaction } from '../redaction/event-redaction.js';
import { redactedInspection } from '../redaction/redacted-inspection.js';
import { everyStateAsSnapshot } from '../events/every-state-inspection.js';
import type { InspectObserver } from '../events/observers.js';
import { fencedStore } from './fenced-store.js';
import { watchRunControls } from './run-controls.js';
import { SUSPEND_RUN, SuspensionPoint, type SuspendableRun } from './run-suspension.js';
import { RunTools } from '../tools/run-tools.js';
import { runMessages } from './run-messages.js';
import { runRuntimeFor, workflowInput } from './run-setup.js';
import { endRun } from './run-end.js';
import type { KernelInternals, LaunchPlan } from './launch-plan.js';

export type { KernelInternals, LaunchPlan } from './launch-plan.js';

/** Starts the workflow actor for a plan and wires its events, result, queues and abort. */
export function launchRun(internals: KernelInternals, plan: LaunchPlan): SuspendableRun {
  const { deps, registry, machine, leases } = internals;
  const { runId, fence } = plan;
  const { clock } = deps;
  const stream = new EventStream();
  const listeners: EventListener[] = [(event) => stream.push(event)];
  let abortWith: (stop: StopCondition) => void = () => undefined;
  let ended = false;
  // The store failed to record the run or grant its lease: nothing of the run is in it to complete.
  let unrecorded = false;
  // A failure outside the machines (store, lease, listener) ends the run `error`, explained first
  // by one `error` event naming the part (the machines report their own actors' failures).
  const failRun = (scope: ErrorScope, detail: string) => {
    if (ended || fence.lost) return;
    const code = errorCodeOfScope(scope);
    sink.emit({ type: 'error', scope, code, message: detail });
    abortWith({ reason: 'error', code, detail, at: clock.now() });
  };
  // Another process holds the run now: stop at once, write nothing more (the store refuses it
  // anyway), and end here with `error` / `lease_lost`, explained by an event this process alone sees.
  const loseLease = (detail: string) => {
    if (ended) return;
    fence.lost = true;
    sink.emit({ type: 'error', scope: 'store', code: 'lease_lost', message: detail });
    abortWith({ reason: 'error', code: 'lease_lost', detail: 'lease_lost', at: clock.now() });
  };
  // A worker handing the run back to its queue (ADR/0201): from here on nothing is written, as
  // after a lost lease, but the lease is ours and is released when the run has ended.
  let suspended = false;
  const suspension = new SuspensionPoint(() => {
    if (ended || fence.lost) return;
    fence.lost = true;
    fence.suspended = true;
    suspended = true;
    abortWith({ reason: 'error', code: 'run_suspended', detail: 'suspended', at: clock.now() });
  });
  listeners.push(suspension.listener);
  const onLeaseTrouble = (detail: string) => (fence.lost ? loseLease(detail) : failRun('store', detail));
  const store = fencedStore(deps.store, fence, loseLease);
  if (deps.events.logger !== undefined) {
    listeners.push(guardedListener(loggerListener(deps.events.logger, runId), (error) => failRun('listener', `the logger threw: ${describeError(error)}`)));
  }
  listeners.push(storeListener(store, (detail) => failRun('store', detail)));
  const delegatedBy = plan.delegation === undefined ? undefined : { ...plan.delegation.parent, traceParent: plan.delegation.traceParent };
  const spans = deps.events.tracing?.startRun({ runId, name: deps.loop.name, resumed: plan.resumed, previous: plan.previousTraceParent, parent: delegatedBy, startTime: clock.now() });
  if (spans !== undefined) listeners.push(spans.listener);
  const sink = new EventSink(runId, () => clock.now(), listeners, plan.lastEventSeq, new EventRedaction(deps.redactor));
  const runController = new AbortController();
  const tools = new RunTools(deps.tools.own, deps.tools.sources, runId, runController.signal);
  const startedAt = clock.now();
  const outerBounds = plan.outerBounds ?? deps.loop.bounds.outer;

  const runtime = runRuntimeFor({ deps, plan, store, sink, tools, signal: runController.signal, startedAt, outerBounds, relay: (event) => stream.push(event), ended: () => ended, confirmLease: () => leases.confirm(fence, onLeaseTrouble) });
  if (internals.delegation !== undefined) runtime.delegate = internals.delegation(runtime);
  if (spans !== undefined) runtime.toolTraceParent = spans.toolTraceParent;
  registry.set(runId, runtime);
  const releaseLease = leases.keep(runId, fence, onLeaseTrouble);

  const actor = createActor(machine, {
    input: workflowInput(deps, plan, outerBounds, startedAt),
    // A delayed event (a deadline) can cut a tool batch: the machines first learn which calls started.
    clock: {
      setTimeout: (callback, delay) =>
        clock.setTimeout(() => {
          runtime.toolStarts.reportPending();
          callback();
        }, delay),
      clearTimeout: (handle) => clock.clearTimeout(handle),
    },
    ...(deps.events.inspect === undefined ? {} : { inspect: guardedInspect(redactedInspection(everyStateAsSnapshot(deps.events.inspect), deps.redactor), (error) => failRun('listener', `the inspect observer threw: ${describeError(error)}`)) }),
  });
  // After the run ended the actor is stopped: an abort (or a store failure) then has nothing to stop.
  abortWith = (stop) => {
    if (ended) return;
    runtime.toolStarts.reportPending();
    actor.send({ type: 'ABORT', stop });
  };

  const abortSignals = [deps.loop.signal, plan.signal].filter((signal): signal is AbortSignal => signal !== undefined);
  const onSignal = () => abortWith({ reason: 'context_canceled', detail: 'the caller aborted (AbortSignal)', at: clock.now() });

  const result = new Promise<WorkflowResult>((resolve) => {
    const finish = async (output: WorkflowOutput) => {
      ended = true;
      for (const signal of abortSignals) signal.removeEventListener('abort', onSignal);
      runController.abort(RUN_ENDED);
      resolve(await endRun(output, { deps, plan, store, sink, tools, recordings: runtime.recordings, startedAt, fence, suspended, unrecorded, releaseLease, forget: () => (registry.delete(runId), stream.close()) }));
    };
    actor.subscribe({
      complete: () => void finish(actor.getSnapshot().output as WorkflowOutput),
      error: (error) =>
        void finish({
          stop: { reason: 'error', code: 'internal_error', detail: `internal: ${describeError(error)}`, at: clock.now() },
          results: plan.progress.results,
          metrics: plan.progress.metrics,
          queues: plan.progress.queues,
          modelCallIndex: plan.progress.modelCallIndex,
        }),
    });
  });

  sink.emit({
    type: 'workflow_start',
    tasks: plan.tasks.map((task) => ({ id: task.id, description: task.description })),
    resumed: plan.resumed,
    ...(plan.forkOf === undefined ? {} : { forkOf: plan.forkOf }),
    ...(spans?.traceParent === undefined ? {} : { traceParent: spans.traceParent }),
  });
  for (const message of plan.warnings ?? []) sink.emit({ type: 'warning', message });
  if (plan.accepted !== undefined) sink.emit({ type: 'workflow_changed', changes: plan.accepted.changes, acceptedBy: plan.accepted.by });
  for (const signal of abortSignals) {
    if (signal.aborted) onSignal();
    else signal.addEventListener('abort', onSignal, { once: true });
  }

  const { queue, clear } = runMessages({ runId, tasks: plan.tasks, progress: plan.progress, send: (event) => actor.send(event), emit: (body) => sink.emit(body), ended: () => ended });

  // Commands sent from other processes act exactly as abort() and steer() here (ADR/0184).
  const controls = watchRunControls(deps.store, runId, fence, (command) => {
    if (command.kind === 'cancel') abortWith({ reason: 'context_canceled', detail: `cancelled from another process${command.reason === undefined ? '' : `: ${command.reason}`}`, at: clock.now() });
    else if (command.kind === 'steer') {
      // The sender checked the task against the run's record; one that is not (the workflow changed since) must not throw here.
      if (command.taskId === undefined || isTaskOf(plan.tasks, command.taskId)) queue('STEER', command.message, command.taskId === undefined ? undefined : { taskId: command.taskId });
      else sink.emit({ type: 'warning', message: `a steering message for task "${command.taskId}" was dropped: the run has no such task` });
    }
  });
  void result.then(controls.stop);
  // A resume starts once the commands sent while it was parked are in (they reach its first turn);
  // a new run once the store recorded it. A failure there ends the run `error` before any task runs.
  const ready = plan.resumed ? Promise.all([plan.ready, controls.first]) : plan.ready;
  if (ready === undefined) actor.start();
  else {
    ready.then(
      () => actor.start(),
      (error: unknown) => {
        unrecorded = true;
        actor.start();
        failRun('store', `store failed before the run started: ${describeError(error)}`);
      },
    );
  }

  return {
    runId,
    result,
    actor,
    abort: (reason) => abortWith({ reason: 'context_canceled', detail: reason ?? 'aborted by the caller', at: clock.now() }),
    steer: (message, options) => queue('STEER', message, options),
    followUp: (message, options) => queue('FOLLOW_UP', message, options),
    clearSteering: () => clear('steering'),
    clearFollowUp: () => clear('followUp'),
    clearAllQueues: () => clear('all'),
    [SUSPEND_RUN]: (request) => {
      suspension.ask(request);
      return result.then(() => suspended);
    },
    [Symbol.asyncIterator]: (): AsyncIterator<KernelEvent> => stream[Symbol.asyncIterator](),
  };
}

/**
 * The user's inspection observer, turned off at its first throw. XState calls it while it builds
 * and runs the actor, so the failure is reported a microtask later, once the run has started.
 */
function guardedInspect(observer: InspectObserver, fail: (error: unknown) => void): (inspectionEvent: unknown) => void {
  const next = typeof observer === 'function' ? observer : (inspectionEvent: unknown) => observer.next?.(inspectionEvent);
  return guardedListener(next, (error) => queueMicrotask(() => fail(error)));
}
