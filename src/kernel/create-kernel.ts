import type { ApprovalAnswer } from '../contracts/policy.js';
import { EMPTY_PROGRESS } from '../contracts/workflow-protocol.js';
import type { RunRecord } from '../contracts/store.js';
import { ConfigError, RunError, isDualloopError } from '../errors.js';
import { createStrategy } from '../strategies/registry.js';
import type { TaskStrategy } from '../strategies/strategy.js';
import { createKernelDeps, type KernelDeps } from './kernel-deps.js';
import { launchRun, type KernelInternals } from './launch-run.js';
import type { KernelOptions } from './options.js';
import { optionsDigest } from './options-digest.js';
import { workflowFingerprint } from './workflow-fingerprint.js';
import { provideMachines } from './provide-machines.js';
import { loadResumePlan } from './resume-plan.js';
import { createForkPlan } from './fork-plan.js';
import { codedStoreFailure } from './coded-store-failure.js';
import { parseForkOptions } from './fork-options.js';
import type { ForkOptions } from '../contracts/fork.js';
import { RunFence } from './fenced-store.js';
import { createHolderId, createLeaseKeeper, heldError } from './run-lease.js';
import type { RunRegistry } from './run-runtime.js';
import { normalizeTasks, type TaskInput } from './tasks.js';
import { isGraph } from '../graph/task-graph.js';
import { childKernels } from './child-kernels.js';
import { childOuterBounds, childTaskSpec, runDelegation, type ChildKernel, type ChildLaunch } from './delegation.js';
import type { TaskSpec } from '../contracts/turn-protocol.js';
import { cleanRunId, refuseRedactedTaskIds } from './run-ids.js';
import type { WorkflowRun } from './workflow-run.js';
import type { OutputsOf } from '../contracts/task-outputs.js';
import type { EvalCase, EvalReport, EvaluateOptions } from '../contracts/evals.js';
import { evaluate } from '../evals/evaluate.js';
import { boundsWithin } from '../evals/case-bounds.js';

export interface StartOptions {
  readonly runId?: string;
  readonly signal?: AbortSignal;
}

export interface ResumeOptions {
  readonly signal?: AbortSignal;
  /**
   * Continue although the workflow changed since the run started (a deploy changed a tool, the
   * prompt, the model…): without it such a resume rejects with RunError `workflow_changed` listing
   * each change; with it the run goes on and a `workflow_changed` event records what changed.
   */
  readonly acceptChange?: boolean;
  /**
   * Answers to parked approvals, by approval id (a tool call's id, or `task:<taskId>`):
   * `'approve' | 'reject' | { decision: 'approve', args } | { decision: 'reject', message }`.
   * Checked before the run is touched: a malformed answer, or `args` the waiting tool's schema
   * refuses, rejects with a ConfigError naming every field (docs/operations.md).
   */
  readonly approvals?: Readonly<Record<string, ApprovalAnswer>>;
}

export interface Kernel {
  /**
   * Starts a run of `tasks` (or the tasks given in the options). Throws ConfigError on invalid
   * tasks. Tasks given as a literal type the run's outputs by id (docs/api.md, "Typed outputs").
   */
  start<const Tasks extends readonly TaskInput[] = readonly TaskInput[]>(tasks?: Tasks, options?: StartOptions): WorkflowRun<OutputsOf<Tasks>>;
  /** Continues a run from its last checkpoint. Rejects with RunError when it cannot be resumed, ConfigError on invalid approvals. */
  resume(runId: string, options?: ResumeOptions): Promise<WorkflowRun>;
  /**
   * Time travel: a new run that starts from a point of `runId`'s history (docs/time-travel.md).
   * The source is never changed nor waited for. Throws ConfigError on invalid options; rejects
   * with RunError `run_not_found`, `fork_point_not_found` (naming the valid points) or `run_exists`.
   */
  fork(runId: string, options: ForkOptions): Promise<WorkflowRun>;
  /**
   * Evals (docs/evals.md): runs each case — a recorded run of this kernel's store, or a task list —
   * again with this kernel's options as the candidate, tools answered from the recording, and
   * scores it. Throws ConfigError for invalid options or cases (an unknown or unfinished run).
   */
  evaluate(cases: readonly EvalCase[], options: EvaluateOptions): Promise<EvalReport>;
}

/**
 * Records the run and takes its lease, whose token `fence` receives. Synchronous stores finish
 * here: a duplicate run id, or a run another process holds, throws its RunError from `start()`.
 * Any other failure of the store is data, as with an asynchronous store: the returned promise
 * rejects and the run ends `error` (scope `store`) before any task runs.
 */
function createRunRecord(deps: KernelDeps, record: RunRecord, holder: string, fence: RunFence): Promise<void> | undefined {
  const { store } = deps;
  const lease = () =>
    then(store.acquireLease(record.runId, holder, deps.loop.leaseMs), (result) => {
      if (!result.acquired) throw heldError(record.runId, result);
      return result.token;
    });
  let token: number | Promise<number>;
  try {
    const created = store.createRun(record);
    token = created instanceof Promise ? created.then(lease) : lease();
  } catch (error) {
    if (isDualloopError(error, 'run_exists') || isDualloopError(error, 'run_held')) throw error;
    token = Promise.reject(error);
  }
  fence.set(token);
  return token instanceof Promise ? token.then(() => undefined) : undefined;
}

function then<T, R>(value: T | Promise<T>, next: (value: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** A plan strategy writes its own steps: a graph's `dependsOn` and `forEach` are for the `react` strategy. */
function refuseGraphWithPlanner(specs: readonly TaskSpec[], strategy: string): void {
  if (strategy === 'react' || !isGraph(specs)) return;
  const issues = specs.flatMap((spec) => [
    ...(spec.dependsOn === undefined ? [] : [{ path: `tasks.${spec.index}.dependsOn`, message: `needs strategy "react" (the ${strategy} strategy plans its own steps)` }]),
    ...(spec.forEach === undefined ? [] : [{ path: `tasks.${spec.index}.forEach`, message: `needs strategy "react" (the ${strategy} strategy plans its own steps)` }]),
  ]);
  throw new ConfigError({ message: 'Invalid tasks', issues });
}

/**
 * Validates the options once (throwing one ConfigError naming every bad field, before any side
 * effect) and provides both machines once. Runs share nothing but the kernel's dependencies.
 */
export function createKernel(options: KernelOptions): Kernel {
  return buildKernel(options, createStrategy);
}

/**
 * Internal (not exported from the package): a kernel whose TASK_SELECT takes its tasks from the
 * given strategy. `createEngine` uses it to run one task per stream on the same machinery.
 */
export function buildKernel(options: KernelOptions, strategyFor: (deps: KernelDeps) => TaskStrategy): Kernel & ChildKernel {
  const deps = createKernelDeps(options);
  const registry: RunRegistry = new Map();
  const holder = createHolderId();
  const children = childKernels(options, deps, (childOptions) => buildKernel(childOptions, createStrategy));
  const internals: KernelInternals = {
    deps,
    registry,
    machine: provideMachines(deps, registry, strategyFor(deps)),
    leases: createLeaseKeeper(deps.store, holder, deps.loop.leaseMs),
    delegation: (run) => runDelegation(run, deps, children),
  };
  const digest = optionsDigest(options);
  const fingerprint = workflowFingerprint(options, deps.loop.bounds);
  const workflow = { digest, fingerprint };

  /** Records the run (with its parent, for a delegated one) and launches it. */
  const launchNew = (specs: readonly TaskSpec[], runId: string, signal: AbortSignal | undefined, delegated?: ChildLaunch) => {
    if (registry.has(runId)) throw new RunError({ code: 'run_active', runId, message: `run ${runId} is already running in this kernel` });
    const fence = new RunFence(runId);
    const record = { runId, ...(deps.loop.name === undefined ? {} : { name: deps.loop.name }), optionsDigest: digest, fingerprint, tasks: specs, createdAt: deps.clock.now(), ...(delegated === undefined ? {} : { parent: delegated.parent }) };
    const ready = createRunRecord(deps, record, holder, fence);
    return launchRun(internals, {
      runId,
      tasks: specs,
      progress: EMPTY_PROGRESS,
      resumed: false,
      approvals: new Map(),
      lastEventSeq: 0,
      signal,
      holder,
      fence,
      ...(ready === undefined ? {} : { ready }),
      ...(delegated === undefined ? {} : { outerBounds: childOuterBounds(deps.loop.bounds.outer, delegated.room), delegation: delegated }),
    });
  };

  return {
    deps,
    evaluate: (cases, evalOptions) =>
      evaluate(
        {
          store: deps.store,
          tools: options.tools ?? [],
          candidate: (tools, store, maxCostUsd) => buildKernel({ ...options, tools, store, bounds: boundsWithin(options.bounds, maxCostUsd) }, strategyFor),
        },
        cases,
        evalOptions,
      ),
    start(tasks, startOptions = {}) {
      const specs = normalizeTasks(tasks ?? deps.loop.tasks ?? (deps.loop.goal === undefined ? undefined : [deps.loop.goal]), deps.loop.bounds, deps.guardrails.names);
      if (startOptions.runId !== undefined && !RUN_ID.test(startOptions.runId)) {
        throw new ConfigError({ message: 'Invalid start options', issues: [{ path: 'runId', message: 'must be 1–128 letters, digits, ".", "_" or "-"' }] });
      }
      const runId = cleanRunId(startOptions.runId, deps.redactor, 'start options');
      refuseRedactedTaskIds(specs, deps.redactor);
      refuseGraphWithPlanner(specs, deps.loop.strategy);
      return launchNew(specs, runId, startOptions.signal);
    },
    startChild(tasks, launch) {
      const specs = normalizeTasks(tasks as readonly TaskInput[], deps.loop.bounds, deps.guardrails.names).map((spec) => childTaskSpec(spec, launch.room));
      refuseGraphWithPlanner(specs, deps.loop.strategy);
      return launchNew(specs, launch.runId, launch.signal, launch);
    },
    async resumeChild(launch) {
      const { runId } = launch;
      if (registry.has(runId)) throw new RunError({ code: 'run_active', runId, message: `run ${runId} is already running in this kernel` });
      // A child's workflow is its parent's, checked when the parent was taken up.
      const plan = await loadResumePlan(deps, runId, workflow, holder, { signal: launch.signal, approvals: launch.approvals as Record<string, ApprovalAnswer>, acceptChange: true }).catch((error: unknown) => {
        throw codedStoreFailure(error, deps.store, runId, 'resume of');
      });
      return launchRun(internals, {
        ...plan,
        progress: plan.progress ?? EMPTY_PROGRESS,
        holder,
        outerBounds: childOuterBounds(deps.loop.bounds.outer, launch.room),
        delegation: launch,
      });
    },
    async fork(sourceRunId, forkOptions) {
      const parsed = parseForkOptions(forkOptions);
      const runId = cleanRunId(parsed.runId, deps.redactor, 'fork options');
      if (registry.has(runId)) throw new RunError({ code: 'run_active', runId, message: `run ${runId} is already running in this kernel` });
      const plan = await createForkPlan(deps, { sourceRunId, runId, workflow, holder, options: parsed }).catch((error: unknown) => {
        throw codedStoreFailure(error, deps.store, runId, `fork of ${sourceRunId} into`);
      });
      return launchRun(internals, { ...plan, holder });
    },
    async resume(runId, resumeOptions = {}) {
      if (registry.has(runId)) throw new RunError({ code: 'run_active', runId, message: `run ${runId} is already running in this kernel` });
      const plan = await loadResumePlan(deps, runId, workflow, holder, resumeOptions).catch((error: unknown) => {
        throw codedStoreFailure(error, deps.store, runId, 'resume of');
      });
      return launchRun(internals, { ...plan, progress: plan.progress ?? EMPTY_PROGRESS, holder });
    },
  };
}
