import { historyDamage } from '../checkpoint/history-damage.js';
import type { AuditActiveTask, AuditCompaction, AuditError, AuditOutputInvalid, AuditPolicyDecision, AuditReport, AuditTask, AuditTurn, AuditWrapUp } from '../contracts/audit.js';
import type { KernelEvent } from '../contracts/events.js';
import { EMPTY_METRICS, type TaskResult, type TurnResult, type WorkflowResult, type WrapUpResult } from '../contracts/results.js';
import { isResumableStop } from '../contracts/stop-rules.js';
import type { RunRecord } from '../contracts/store.js';
import type { ActiveTask, WorkflowProgress } from '../contracts/workflow-protocol.js';
import { auditGraph } from './audit-graph.js';

/** Tasks of a result that will not run again: a task halted for a resumable reason runs again on resume. */
export function finishedTasks(result: WorkflowResult): number {
  return result.tasks.filter((task) => !isResumableStop(task.stop.reason)).length;
}

export interface AuditSources {
  readonly record: RunRecord;
  readonly result: WorkflowResult | undefined;
  /** The latest checkpoint's progress, used when the run has no result (running or crashed). */
  readonly progress: WorkflowProgress | undefined;
  /**
   * The run's events; only `workflow_start`, `policy_decision`, `error`, `compaction_end`, `output_invalid`, plan,
   * `strategy_selected`, `workflow_changed` and `checkpoint_saved` events are read (AUDITED_EVENT_TYPES), so a store may pass just those and give the size of the whole log as `eventCount`.
   */
  readonly events: readonly KernelEvent[];
  readonly eventCount?: number;
  /** The store's `kind`, named when the history is damaged. */
  readonly storeKind: string;
  /** The `sequence` of the latest checkpoint the store holds of the run; undefined when it holds none. */
  readonly checkpointSequence: number | undefined;
}

/** Builds the stop tree from what any store keeps; every store's `audit()` delegates here. */
export function buildAudit({ record, result, progress, events, eventCount, storeKind, checkpointSequence }: AuditSources): AuditReport {
  const compactions = compactionsByTask(events);
  const invalid = invalidOutputsByTask(events);
  const tasks = (result?.tasks ?? progress?.results ?? []).map((task) => {
    const key = taskKey(task.index, task.taskId);
    return auditTask(task, compactions.get(key) ?? [], invalid.get(key));
  });
  const policyDecisions: AuditPolicyDecision[] = [];
  const errors: AuditError[] = [];
  const plans: { at: number; kind: 'created' | 'revised'; steps: string[]; reason?: string }[] = [];
  let strategy: AuditReport['strategy'];
  const workflowChanges: NonNullable<AuditReport['workflowChanges']>[number][] = [];
  const guardrailTrips: NonNullable<AuditReport['guardrailTrips']>[number][] = [];
  for (const event of events) {
    if (event.type === 'policy_decision') {
      policyDecisions.push({
        at: event.at,
        seq: event.seq,
        subject: event.subject,
        taskId: event.taskId,
        ...(event.toolCallId === undefined ? {} : { toolCallId: event.toolCallId }),
        ...(event.toolName === undefined ? {} : { toolName: event.toolName }),
        decision: event.decision,
        reason: event.reason,
        ...(event.approvalId === undefined ? {} : { approvalId: event.approvalId }),
        ...(event.answer === undefined ? {} : { answer: event.answer }),
        ...(event.childRunId === undefined ? {} : { childRunId: event.childRunId }),
      });
    }
    if (event.type === 'error') {
      errors.push({ at: event.at, seq: event.seq, scope: event.scope, message: event.message, ...(event.taskId === undefined ? {} : { taskId: event.taskId }) });
    }
    const planned = planOf(event);
    if (planned !== undefined) plans.push(planned);
    if (event.type === 'strategy_selected') strategy = { name: event.strategy, reason: event.reason, by: event.by, at: event.at };
    if (event.type === 'workflow_changed') workflowChanges.push({ at: event.at, changes: event.changes, acceptedBy: event.acceptedBy });
    if (event.type === 'guardrail_tripped') {
      const { at, seq, taskId, turn, name, on, mode, reason, toolCallId } = event;
      guardrailTrips.push({ at, seq, taskId, turn, name, on, mode, reason, ...(toolCallId === undefined ? {} : { toolCallId }) });
    }
  }
  // A run whose records say it made progress while its history is gone: named as a resume names it (ADR 0105).
  const damage = historyDamage({
    runId: record.runId,
    storeKind,
    tasksDone: result === undefined ? 0 : finishedTasks(result),
    checkpointSequence,
    hasEvents: (eventCount ?? events.length) > 0,
    savedCheckpoints: events.filter((event) => event.type === 'checkpoint_saved'),
  });
  if (damage !== undefined) errors.push({ at: result?.stop.at ?? record.createdAt, seq: 0, scope: 'checkpoint', code: 'checkpoint_corrupt', message: `checkpoint_corrupt: ${damage}` });
  const stop = result?.stop;
  const activeOf = (running: ActiveTask) => {
    const key = taskKey(running.task.index, running.task.id);
    return auditActive(running, compactions.get(key) ?? [], invalid.get(key));
  };
  const active = result === undefined && progress?.active !== undefined ? activeOf(progress.active) : undefined;
  const running = result === undefined ? (progress?.branches ?? []).map(activeOf) : [];
  const graph = auditGraph(record.tasks, tasks, running);
  const forkOf = record.forkOf === undefined ? undefined : { ...record.forkOf, ...rerunOf(events) };
  const status: AuditReport['status'] = stop === undefined ? 'incomplete' : isResumableStop(stop.reason) ? 'resumable' : 'finished';
  return {
    runId: record.runId,
    ...(record.name === undefined ? {} : { name: record.name }),
    createdAt: record.createdAt,
    ...(forkOf === undefined ? {} : { forkOf }),
    ...(record.evalOf === undefined ? {} : { evalOf: record.evalOf }),
    ...(record.parent === undefined ? {} : { parent: record.parent }),
    status,
    workflow: {
      ...(stop === undefined ? {} : { stop }),
      metrics: result?.metrics ?? progress?.metrics ?? EMPTY_METRICS,
      ...(stop?.bound === undefined ? {} : { bound: stop.bound }),
    },
    tasks,
    ...(active === undefined ? {} : { active }),
    ...(graph === undefined ? {} : { graph }),
    ...(graph === undefined || result !== undefined ? {} : { running }),
    policyDecisions,
    errors,
    plans,
    ...(strategy === undefined ? {} : { strategy }),
    ...(workflowChanges.length === 0 ? {} : { workflowChanges }),
    ...(guardrailTrips.length === 0 ? {} : { guardrailTrips }),
    events: eventCount ?? events.length,
  };
}

/** The event types `buildAudit` reads: a store's `audit()` loads the bodies of these and only counts the others. */
export const AUDITED_EVENT_TYPES = ['workflow_start', 'policy_decision', 'plan_created', 'plan_revised', 'strategy_selected', 'error', 'checkpoint_saved', 'compaction_end', 'output_invalid', 'workflow_changed', 'guardrail_tripped'] as const;

/** A graph fork's re-run tasks: its first `workflow_start` event names them (the record's `forkOf` does not). */
function rerunOf(events: readonly KernelEvent[]): { rerun?: readonly string[] } {
  const start = events.find((event) => event.type === 'workflow_start' && event.forkOf !== undefined);
  const rerun = start?.type === 'workflow_start' ? start.forkOf?.rerun : undefined;
  return rerun === undefined ? {} : { rerun };
}

function taskKey(index: number, taskId: string): string {
  return `${index}\u0000${taskId}`;
}

/**
 * Each task's compactions, one per turn in turn order. A turn that ran again after a resume was
 * compacted again: its latest compaction is the one its record goes with.
 */
function compactionsByTask(events: readonly KernelEvent[]): Map<string, AuditCompaction[]> {
  const byTurn = new Map<string, Map<number, AuditCompaction>>();
  for (const event of events) {
    if (event.type !== 'compaction_end') continue;
    const key = taskKey(event.taskIndex, event.taskId);
    const turns = byTurn.get(key) ?? new Map<number, AuditCompaction>();
    turns.set(event.turn, { at: event.at, seq: event.seq, turn: event.turn, outcome: event.outcome, messagesBefore: event.messagesBefore, messagesAfter: event.messagesAfter });
    byTurn.set(key, turns);
  }
  return new Map([...byTurn].map(([key, turns]) => [key, [...turns.values()].sort((a, b) => a.turn - b.turn)]));
}

/** A task's typed answers that did not match: by turn (the latest, as for compactions) and the wrap-up's. */
interface InvalidOutputs {
  readonly turns: Map<number, AuditOutputInvalid>;
  wrapUp?: AuditOutputInvalid;
}

function invalidOutputsByTask(events: readonly KernelEvent[]): Map<string, InvalidOutputs> {
  const byTask = new Map<string, InvalidOutputs>();
  for (const event of events) {
    if (event.type !== 'output_invalid') continue;
    const key = taskKey(event.taskIndex, event.taskId);
    const found = byTask.get(key) ?? { turns: new Map<number, AuditOutputInvalid>() };
    const entry: AuditOutputInvalid = { at: event.at, seq: event.seq, outcome: event.outcome, repairs: event.repairs, issues: event.issues };
    if (event.wrapUp) found.wrapUp = entry;
    else found.turns.set(event.turn, entry);
    byTask.set(key, found);
  }
  return byTask;
}

function auditTask(task: TaskResult, compactions: readonly AuditCompaction[], invalid: InvalidOutputs | undefined): AuditTask {
  return {
    taskId: task.taskId,
    index: task.index,
    description: task.description,
    stop: task.stop,
    counters: {
      turns: task.turnCount,
      toolCalls: task.toolCalls,
      inputTokens: task.usage.inputTokens,
      outputTokens: task.usage.outputTokens,
      costUsd: task.costUsd,
      runtimeMs: task.runtimeMs,
    },
    ...(task.stop.bound === undefined ? {} : { bound: task.stop.bound }),
    turns: task.turns.map((turn) => auditTurn(turn, compactions, invalid)),
    compactions,
    ...(task.wrapUp === undefined ? {} : { wrapUp: auditWrapUp(task.wrapUp, invalid?.wrapUp) }),
  };
}

function auditWrapUp(wrapUp: WrapUpResult, outputInvalid: AuditOutputInvalid | undefined): AuditWrapUp {
  return {
    afterTurn: wrapUp.turn,
    ...(wrapUp.finishReason === undefined ? {} : { finishReason: wrapUp.finishReason }),
    textLength: wrapUp.assistantText.length,
    usage: wrapUp.usage,
    costUsd: wrapUp.costUsd,
    runtimeMs: wrapUp.runtimeMs,
    ...(outputInvalid === undefined ? {} : { outputInvalid }),
  };
}

function auditActive({ task, point }: ActiveTask, compactions: readonly AuditCompaction[], invalid: InvalidOutputs | undefined): AuditActiveTask {
  const { progress } = point;
  return {
    taskId: task.id,
    index: task.index,
    description: task.description,
    counters: {
      turns: progress.turns.length,
      toolCalls: progress.toolCalls,
      inputTokens: progress.usage.inputTokens,
      outputTokens: progress.usage.outputTokens,
      costUsd: progress.costUsd,
      runtimeMs: progress.elapsedMs,
    },
    turns: progress.turns.map((turn) => auditTurn(turn, compactions, invalid)),
    compactions,
  };
}

function auditTurn(turn: TurnResult, compactions: readonly AuditCompaction[], invalid: InvalidOutputs | undefined): AuditTurn {
  const compaction = compactions.find((candidate) => candidate.turn === turn.turn);
  const outputInvalid = invalid?.turns.get(turn.turn);
  return {
    turn: turn.turn,
    ...(turn.stop === undefined ? {} : { stop: turn.stop }),
    toolCalls: turn.toolCalls.map((call) => ({
      id: call.id,
      name: call.name,
      isError: call.isError,
      ...(call.proposedArgs === undefined ? {} : { args: call.args, proposedArgs: call.proposedArgs }),
    })),
    usage: turn.usage,
    runtimeMs: turn.runtimeMs,
    ...(compaction === undefined ? {} : { compaction }),
    ...(outputInvalid === undefined ? {} : { outputInvalid }),
  };
}

/** Plan events are added by the plan strategies; read them structurally so this file does not depend on them. */
function planOf(event: KernelEvent): { at: number; kind: 'created' | 'revised'; steps: string[]; reason?: string } | undefined {
  const type = (event as { type: string }).type;
  if (type !== 'plan_created' && type !== 'plan_revised') return undefined;
  const plan = event as unknown as { steps?: readonly (string | { description?: string })[]; reason?: string };
  const steps = (plan.steps ?? []).map((step) => (typeof step === 'string' ? step : (step.description ?? '')));
  return { at: event.at, kind: type === 'plan_created' ? 'created' : 'revised', steps, ...(plan.reason === undefined ? {} : { reason: plan.reason }) };
}
