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
import type { WorkflowMetrics } from '../../contracts/results.js';
import { haltedByTask, OUTER_CONDITIONS, sessionRuntimeExceeded, workflowBudgetExhausted } from '../../stop/outer-conditions.js';
import type { Spent } from '../spend-ledger.js';
import { firstVerdict } from '../../stop/user-verdicts.js';
import type { TaskStrategy } from '../../strategies/strategy.js';
import type { KernelDeps } from '../kernel-deps.js';
import { runtimeOf, type RunRegistry } from '../run-runtime.js';

/**
 * TASK_SELECT.PICK: the strategy names the next task (a graph: the ready tasks). What its model
 * calls spent goes to the run's ledger. A graph source that has nothing to start while nothing
 * runs would leave the run waiting for nothing: that is a bug, and ends the run `error`.
 */
export function createTaskSource(deps: KernelDeps, registry: RunRegistry, strategy: TaskStrategy) {
  return fromPromise<TaskSourceOutput, TaskSourceInput>(async ({ input, signal }) => {
    const run = runtimeOf(registry, input.runId);
    const output = await strategy.next(input, run, deps, signal);
    if (output.spent !== undefined) run.spend.charge({ inputTokens: output.spent.inputTokens, outputTokens: output.spent.outputTokens }, output.spent.costUsd);
    if (output.kind === 'ready' && output.start.length === 0 && output.settled.length === 0 && input.running === 0) {
      const at = deps.clock.now();
      return { kind: 'stop', stop: { reason: 'error', code: 'internal_error', detail: 'internal: the task source has nothing to start while no task runs', at } };
    }
    return output;
  });
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
    const { approvalId, answer } = approval;
    if (answer?.decision === 'approve' && answer.args !== undefined) {
      // A task has no arguments to edit; `resume` refuses this answer when it knows the approval is a task's (ADR/0470).
      throw new FailureError({ code: 'policy_failed', message: `approval ${approvalId} of task "${task.id}" was answered with args, but a task's approval takes none` });
    }
    run.emit({ type: 'policy_decision', ...scope, decision: approval.decision, reason: approval.reason, approvalId, ...(answer === undefined ? {} : { answer }) });
    if (approval.decision === 'allow') return { decision: 'allow', at };
    if (approval.decision === 'deny') {
      const message = answer?.decision === 'reject' && answer.message !== undefined ? `: ${answer.message}` : '';
      return { decision: 'deny', at, stop: { reason: 'policy_denied', detail: `task "${task.id}": approval ${approvalId} rejected${message}`, at } };
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
    const sequence = await run.checkpoints.task(input.progress, input.task, input.halted);
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
    // A graph: a task that stops early stops only the tasks that wait for it, and the graph's
    // source ends the run when nothing can start; only the deadline and the budget (the run's
    // spend, running tasks included) stop it here.
    const graph = input.settings.graph;
    const halted = graph ? undefined : strategy.halted === undefined ? haltedByTask(check) : strategy.halted(check, input.strategy);
    if (halted !== undefined) return { stop: { ...halted, at: now }, at: now };
    const conditions = graph ? GRAPH_CONDITIONS : OUTER_CONDITIONS;
    const builtIn = pickStop(conditions.map((condition) => condition(graph ? { ...check, metrics: liveMetrics(input.metrics, run.spend.total()) } : check)));
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
    // A stop decided now cancels the running tasks: first they learn which tool calls had started (ADR/0393).
    if (chosen !== undefined && input.running > 0) run.toolStarts.reportPending();
    const stop: StopCondition | undefined = chosen === undefined ? undefined : { ...chosen, at };
    return stop === undefined ? { at } : { stop, at };
  });
}

/** A graph's built-in outer conditions: its source decides when every task is done and when the steps ran out. */
const GRAPH_CONDITIONS = [sessionRuntimeExceeded, workflowBudgetExhausted];

/** The workflow's metrics with the run's spend so far, every running task's calls included. */
function liveMetrics(metrics: WorkflowMetrics, spent: Spent): WorkflowMetrics {
  const tokens = metrics.inputTokens + metrics.outputTokens;
  return { ...metrics, inputTokens: metrics.inputTokens + Math.max(0, spent.tokens - tokens), costUsd: Math.max(metrics.costUsd, spent.costUsd) };
}
