import { fromPromise } from 'xstate';
import { pickStop, type StopCondition } from '../../contracts/stop.js';
import type {
  CheckpointInput,
  GateDecision,
  OuterStopInput,
  OuterStopOutput,
  TaskGateInput,
  TaskSourceInput,
  TaskSourceOutput,
} from '../../contracts/workflow-protocol.js';
import { describeError, FailureError } from '../../errors.js';
import { decideApproval } from '../../policy/approvals.js';
import { haltedByTask, OUTER_CONDITIONS } from '../../stop/outer-conditions.js';
import { firstVerdict } from '../../stop/user-verdicts.js';
import type { TaskStrategy } from '../../strategies/strategy.js';
import type { KernelDeps } from '../kernel-deps.js';
import { runtimeOf, type RunRegistry } from '../run-runtime.js';

/** TASK_SELECT.PICK: the strategy names the next task. */
export function createTaskSource(deps: KernelDeps, registry: RunRegistry, strategy: TaskStrategy) {
  return fromPromise<TaskSourceOutput, TaskSourceInput>(({ input, signal }) => strategy.next(input, runtimeOf(registry, input.runId), deps, signal));
}

/** TASK_SELECT.GATE: the policy gate, before every task; approvals given to `resume` answer a parked task. */
export function createTaskGate(deps: KernelDeps, registry: RunRegistry) {
  return fromPromise<GateDecision, TaskGateInput>(async ({ input, signal }) => {
    const run = runtimeOf(registry, input.runId);
    const { task } = input;
    const scope = { subject: 'task' as const, taskId: task.id, taskIndex: task.index };
    const check = deps.policy.checkTask;
    if (check === undefined) {
      run.emit({ type: 'policy_decision', ...scope, decision: 'allow', reason: 'no task policy configured' });
      return { decision: 'allow', at: deps.clock.now() };
    }
    let verdict;
    try {
      verdict = await check({ runId: run.runId, task: { id: task.id, index: task.index, description: task.description }, metrics: input.metrics }, signal);
    } catch (error) {
      // The workflow machine reports it (an `error` event, scope `policy`) and ends the run `error`.
      throw new FailureError({ code: 'policy_failed', message: `checkTask threw on task "${task.id}": ${describeError(error)}`, cause: error });
    }
    const at = deps.clock.now();
    if (verdict.decision === 'allow') {
      run.emit({ type: 'policy_decision', ...scope, decision: 'allow', reason: verdict.reason ?? 'allowed' });
      return { decision: 'allow', at };
    }
    if (verdict.decision === 'deny') {
      run.emit({ type: 'policy_decision', ...scope, decision: 'deny', reason: verdict.reason });
      return { decision: 'deny', at, stop: { reason: 'policy_denied', detail: `task "${task.id}" denied by policy: ${verdict.reason}`, at } };
    }
    const approval = decideApproval(verdict, `task:${task.id}`, run.approvals);
    const { approvalId } = approval;
    run.emit({ type: 'policy_decision', ...scope, decision: approval.decision, reason: approval.reason, approvalId });
    if (approval.decision === 'allow') return { decision: 'allow', at };
    if (approval.decision === 'deny') {
      return { decision: 'deny', at, stop: { reason: 'policy_denied', detail: `task "${task.id}": approval ${approvalId} rejected`, at } };
    }
    return {
      decision: 'require_approval',
      at,
      stop: { reason: 'awaiting_approval', detail: `task "${task.id}" awaiting approval ${approvalId}: ${verdict.reason}`, at },
    };
  });
}

/** CHECKPOINT: the workflow progress after a task goes to the run's checkpoint writer. */
export function createCheckpointer(deps: KernelDeps, registry: RunRegistry) {
  return fromPromise<{ at: number }, CheckpointInput>(async ({ input }) => {
    const run = runtimeOf(registry, input.runId);
    const sequence = await run.checkpoints.task(input.progress, input.task);
    run.emit({ type: 'checkpoint_saved', kind: 'task', taskId: input.task.taskId, taskIndex: input.task.index, sequence });
    return { at: deps.clock.now() };
  });
}

/** NEXT_TASK: the halt rule, then the built-in outer conditions and the user's outer evaluators. */
export function createOuterStopEvaluator(deps: KernelDeps, registry: RunRegistry, strategy: TaskStrategy) {
  return fromPromise<OuterStopOutput, OuterStopInput>(async ({ input, signal }) => {
    const run = runtimeOf(registry, input.runId);
    const now = deps.clock.now();
    const check = {
      bounds: input.bounds,
      results: input.results,
      metrics: input.metrics,
      onTaskStop: input.settings.onTaskStop,
      remaining: strategy.remaining(input.results, input.strategy, run),
      elapsedMs: input.elapsedBeforeMs + Math.max(0, now - input.startedAt),
    };
    const halted = strategy.halted === undefined ? haltedByTask(check) : strategy.halted(check, input.strategy);
    if (halted !== undefined) return { stop: { ...halted, at: now }, at: now };
    const builtIn = pickStop(OUTER_CONDITIONS.map((condition) => condition(check)));
    const user =
      deps.stop.outer.length === 0 || builtIn?.reason === 'goal_achieved'
        ? undefined
        : await firstVerdict(
            deps.stop.outer.map((evaluate) => () => evaluate({ runId: run.runId, results: input.results, metrics: input.metrics }, signal)),
            'outer',
          );
    if (user?.reason === 'error') run.emit({ type: 'error', scope: 'stop_evaluator', code: user.code, message: user.detail });
    const chosen = pickStop([builtIn, user]);
    const at = deps.clock.now();
    const stop: StopCondition | undefined = chosen === undefined ? undefined : { ...chosen, at };
    return stop === undefined ? { at } : { stop, at };
  });
}
