/**
 * Delegation (`agentTool`, docs/delegation.md, ADR/0455): runs an agent tool call's child run —
 * or continues it, after a crash or a parked approval, since its run id comes from the call's
 * place — on a kernel built from the parent's options and the agent's own, in the parent's store.
 * The child's bounds are its own, held within what the parent has left at the call (tokens, cost,
 * tool calls, runtime); its model calls charge the parent's ledger as they answer; its events reach
 * the parent's stream (with `path`); cancelling the call cancels it; a child parked for approval
 * parks the parent, whose approvals answer it on resume.
 */
import { delegationDepthOf, type OuterBounds } from '../contracts/bounds.js';
import type { ChildRunOptions, DelegateCall, DelegatedOutcome } from '../contracts/delegation.js';
import type { WorkflowResult } from '../contracts/results.js';
import type { RunParent } from '../contracts/store.js';
import { isResumableStop } from '../contracts/stop-rules.js';
import type { TaskSpec } from '../contracts/turn-protocol.js';
import type { DelegatingCall } from '../tools/tool-port.js';
import type { KernelDeps } from './kernel-deps.js';
import { childRunIdAt } from '../contracts/child-run-id.js';
import type { RunRuntime } from './run-runtime.js';
import type { SpendLedger } from './spend-ledger.js';
import type { WorkflowRun } from './workflow-run.js';

/** What the parent has left at the call; a child's bounds are held within it. */
export interface Room {
  readonly tokens: number | undefined;
  readonly costUsd: number | undefined;
  readonly toolCalls: number;
  readonly runtimeMs: number;
}

/** How a child run is launched or continued (the kernel's internal entry points). */
export interface ChildLaunch {
  readonly runId: string;
  readonly signal: AbortSignal;
  readonly parent: RunParent;
  readonly depth: number;
  readonly parentSpend: SpendLedger;
  readonly room: Room;
  readonly approvals: Readonly<Record<string, unknown>>;
  /** The parent's span of the call (`traceparent`) when the parent is traced: the child's spans nest under it. */
  readonly traceParent: string | undefined;
}

export interface ChildKernel {
  readonly deps: KernelDeps;
  startChild(tasks: readonly unknown[], launch: ChildLaunch): WorkflowRun;
  resumeChild(launch: ChildLaunch): Promise<WorkflowRun>;
}


/** A child run's id: the parent's, then the call's place — the same on every resume of the parent. */
export function childRunId(parentRunId: string, call: DelegatingCall): string {
  return childRunIdAt(parentRunId, { taskIndex: call.taskIndex, item: call.task.spec.item?.position, turn: call.turn, position: call.position });
}


/** What the parent has left for the call's child. */
export function roomAt(run: RunRuntime, call: DelegatingCall, now: number): Room {
  const { spec, tokens, costUsd, toolCalls, deadlineAt } = call.task;
  const spent = run.spend.total();
  const least = (...values: (number | undefined)[]) => {
    const defined = values.filter((value): value is number => value !== undefined);
    return defined.length === 0 ? undefined : Math.min(...defined);
  };
  const outer = run.outerBounds;
  return {
    tokens: least(outer.maxTokens === undefined ? undefined : outer.maxTokens - spent.tokens, spec.bounds.maxTokens === undefined ? undefined : spec.bounds.maxTokens - tokens),
    costUsd: least(outer.maxCostUsd === undefined ? undefined : outer.maxCostUsd - spent.costUsd, spec.bounds.maxCostUsd === undefined ? undefined : spec.bounds.maxCostUsd - costUsd),
    // This call used a slot of its own.
    toolCalls: spec.bounds.maxToolCalls - toolCalls - 1,
    runtimeMs: Math.min(deadlineAt, run.sessionDeadlineAt) - now,
  };
}

/** The child's outer bounds: its own, held within the room. */
export function childOuterBounds(own: OuterBounds, room: Room): OuterBounds {
  const within = (value: number | undefined, limit: number | undefined) => (limit === undefined ? value : value === undefined ? limit : Math.min(value, limit));
  const maxTokens = within(own.maxTokens, room.tokens);
  const maxCostUsd = within(own.maxCostUsd, room.costUsd);
  return {
    ...own,
    maxSessionRuntimeMs: Math.min(own.maxSessionRuntimeMs, room.runtimeMs),
    ...(maxTokens === undefined ? {} : { maxTokens }),
    ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
  };
}

/** A child task's bounds: its own, held within the room. */
export function childTaskSpec(task: TaskSpec, room: Room): TaskSpec {
  const { bounds } = task;
  const within = (value: number | undefined, limit: number | undefined) => (limit === undefined ? value : value === undefined ? limit : Math.min(value, limit));
  const maxTokens = within(bounds.maxTokens, room.tokens);
  const maxCostUsd = within(bounds.maxCostUsd, room.costUsd);
  return {
    ...task,
    bounds: {
      ...bounds,
      maxToolCalls: Math.min(bounds.maxToolCalls, room.toolCalls),
      maxRuntimeMs: Math.min(bounds.maxRuntimeMs, room.runtimeMs),
      ...(maxTokens === undefined ? {} : { maxTokens }),
      ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
    },
  };
}

/** Why no child can run in this room, or `undefined`. */
function noRoom(room: Room): string | undefined {
  if (room.toolCalls < 1) return 'the task has no tool call left for the delegated run';
  if (room.runtimeMs < 1) return 'the task or session deadline leaves no time for the delegated run';
  if (room.tokens !== undefined && room.tokens < 1) return 'the token budget is spent';
  if (room.costUsd !== undefined && room.costUsd <= 0) return 'the cost budget is spent';
  return undefined;
}

/** The parent run's delegation: for each agent tool call, what runs its child. */
export function runDelegation(run: RunRuntime, deps: KernelDeps, childKernel: (options: ChildRunOptions) => ChildKernel) {
  return (call: DelegatingCall): DelegateCall =>
    async ({ options, tasks }): Promise<DelegatedOutcome> => {
      const depth = run.depth + 1;
      const limit = delegationDepthOf(run.outerBounds);
      if (depth > limit) return { kind: 'refused', code: 'delegation_too_deep', message: `a run ${run.depth} levels below its root may not delegate further (maxDelegationDepth=${limit})` };
      const room = roomAt(run, call, deps.clock.now());
      const cramped = noRoom(room);
      if (cramped !== undefined) return { kind: 'refused', code: 'delegation_no_room', message: cramped };
      const kernel = childKernel(options);
      const runId = childRunId(run.runId, call);
      const launch: ChildLaunch = {
        runId,
        signal: call.signal,
        parent: { runId: run.runId, toolCallId: call.toolCallId },
        depth,
        parentSpend: run.spend,
        room,
        approvals: Object.fromEntries(run.approvals),
        traceParent: run.toolTraceParent?.(call.toolCallId),
      };
      const store = kernel.deps.store;
      const child = (await store.getRun(runId)) === undefined ? kernel.startChild(tasks, launch) : await continued(kernel, launch);
      if ('result' in child && !('actor' in child)) return child.outcome;
      return followChild(run, child as WorkflowRun);
    };
}

/** A child that exists already: its result when it ended for good (the parent crashed before recording it), else a resume. */
async function continued(kernel: ChildKernel, launch: ChildLaunch): Promise<WorkflowRun | { readonly result: true; readonly outcome: DelegatedOutcome }> {
  const finished = await kernel.deps.store.loadResult(launch.runId);
  if (finished !== undefined && !isResumableStop(finished.stop.reason)) return { result: true, outcome: { kind: 'ended', runId: launch.runId, result: finished } };
  return kernel.resumeChild(launch);
}

/** Relays the child's events to the parent, gathering the approvals it parks on; answers how it ended. */
async function followChild(run: RunRuntime, child: WorkflowRun): Promise<DelegatedOutcome> {
  const approvalIds: string[] = [];
  for await (const event of child) {
    run.relay(event);
    if (event.type === 'policy_decision' && event.decision === 'require_approval' && event.path === undefined && event.approvalId !== undefined) approvalIds.push(event.approvalId);
  }
  const result: WorkflowResult = await child.result;
  if (result.stop.reason === 'awaiting_approval') return { kind: 'parked', runId: child.runId, approvalIds: [...new Set(approvalIds)], detail: result.stop.detail };
  return { kind: 'ended', runId: child.runId, result };
}
