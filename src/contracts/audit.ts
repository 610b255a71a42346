import type { EvalOrigin, RunParent } from './store.js';
import type { ErrorCode } from './error-codes.js';
import type { GuardrailMode, GuardrailStage } from './guardrails.js';
import type { CompactionOutcome, ErrorScope, OutputInvalidOutcome, PolicySubject } from './events.js';
import type { OutputIssue } from './typed-output.js';
import type { TaskCounters } from './events.js';
import type { WrapUpResult } from './results.js';
import type { StopBound, StopCondition } from './stop.js';
import type { Usage } from './usage.js';
import type { WorkflowMetrics } from './results.js';
import type { ForkOrigin } from './fork.js';
import type { ApprovalAnswerObject } from './policy.js';

/** One compaction of a task's transcript (the turn machine's COMPACT state), from its `compaction_end` event. */
export interface AuditCompaction {
  readonly at: number;
  readonly seq: number;
  /** The turn whose model call it came before. */
  readonly turn: number;
  readonly outcome: CompactionOutcome;
  readonly messagesBefore: number;
  readonly messagesAfter: number;
}

/** A typed answer that did not match its task's `output` schema, from its `output_invalid` event. */
export interface AuditOutputInvalid {
  readonly at: number;
  readonly seq: number;
  readonly outcome: OutputInvalidOutcome;
  /** Repairs sent in the task so far, this one included. */
  readonly repairs: number;
  readonly issues: readonly OutputIssue[];
}

/** One turn in the stop tree. */
/** A tool call of a turn; an approver's edit keeps the model's arguments beside the ones that ran. */
export interface AuditToolCall {
  readonly id: string;
  readonly name: string;
  readonly isError: boolean;
  /** Set with `proposedArgs`: the arguments the tool ran with, an approver's edit. */
  readonly args?: unknown;
  /** Set when an approver edited the arguments (`{ decision: 'approve', args }`): the model's. */
  readonly proposedArgs?: unknown;
}

export interface AuditTurn {
  readonly turn: number;
  readonly stop?: StopCondition;
  readonly toolCalls: readonly AuditToolCall[];
  readonly usage: Usage;
  readonly runtimeMs: number;
  /** The compaction before this turn's model call, when the compactor had work. */
  readonly compaction?: AuditCompaction;
  /** A typed task's answer of this turn that did not match its schema. */
  readonly outputInvalid?: AuditOutputInvalid;
}

/**
 * The wrap-up call (`wrapUpOnBound`, the turn machine's WRAP_UP state): the task's stop was
 * followed by one more model call, without tools, for its best answer. Not a turn.
 */
export interface AuditWrapUp {
  /** The turn whose stop it followed. */
  readonly afterTurn: number;
  /** Absent for a result stored before it was recorded. */
  readonly finishReason?: WrapUpResult['finishReason'];
  /** Characters of its answer (0 when it failed or was cut); the answer is the task's output. */
  readonly textLength: number;
  readonly usage: Usage;
  readonly costUsd: number;
  readonly runtimeMs: number;
  /** A typed task's wrap-up answer that did not match its schema. */
  readonly outputInvalid?: AuditOutputInvalid;
}

/** One task in the stop tree, with the counters at its stop and the bound that fired (with its configured value). */
export interface AuditTask {
  readonly taskId: string;
  readonly index: number;
  readonly description: string;
  readonly stop: StopCondition;
  readonly counters: TaskCounters;
  readonly bound?: StopBound;
  readonly turns: readonly AuditTurn[];
  /** Every compaction of the task, in turn order (the same ones as on its turns, plus one whose turn has no record). */
  readonly compactions: readonly AuditCompaction[];
  readonly wrapUp?: AuditWrapUp;
}

/**
 * The task a run without a result was in at its latest checkpoint: still running, or cut by a
 * crash (a resume continues it from here). It has no stop yet; `counters` are those so far.
 */
export interface AuditActiveTask {
  readonly taskId: string;
  readonly index: number;
  readonly description: string;
  readonly counters: TaskCounters;
  readonly turns: readonly AuditTurn[];
  /** Compactions so far, the turn running at the checkpoint (or the crash) included. */
  readonly compactions: readonly AuditCompaction[];
}

/**
 * One task of a graph run (tasks with `dependsOn` or `forEach`, docs/workflows.md), as the run
 * record gives it, and where it stands: its stop is in `AuditReport.tasks` once it `ended`; a
 * task `in_progress` is in `AuditReport.running` (or, for a `forEach` task, some of its items
 * are); a task `not_started` waits for its dependencies, or the run stopped before it.
 */
export interface AuditGraphTask {
  readonly taskId: string;
  readonly index: number;
  /** As given, placeholders unfilled (a task that ran has its filled description in `tasks`). */
  readonly description: string;
  /** The tasks it waits for: its `dependsOn` and its `forEach` source. */
  readonly dependsOn: readonly string[];
  readonly forEach?: string;
  readonly state: 'ended' | 'in_progress' | 'not_started';
  /** A `forEach` task's items that ended or run (`<taskId>[i]`, in item order); each is in `tasks` or `running`. */
  readonly items?: readonly string[];
}

export interface AuditPolicyDecision {
  readonly at: number;
  readonly seq: number;
  readonly subject: PolicySubject;
  readonly taskId: string;
  readonly toolCallId?: string;
  readonly toolName?: string;
  readonly decision: 'allow' | 'deny' | 'require_approval';
  readonly reason: string;
  readonly approvalId?: string;
  /** The approver's answer that decided it: edited `args`, or the `message` the model was given. */
  readonly answer?: ApprovalAnswerObject;
  /** The delegated run whose approvals the decision waits on. */
  readonly childRunId?: string;
}

/** One `error` event of the run: which part failed and why (docs/events.md). */
export interface AuditError {
  readonly at: number;
  /** The `error` event's seq; 0 for damage the audit itself found (no event records it). */
  readonly seq: number;
  readonly scope: ErrorScope;
  /** Set to `checkpoint_corrupt` for damage to the run's history that the audit found (ADR 0105). */
  readonly code?: ErrorCode;
  readonly message: string;
  readonly taskId?: string;
}

/**
 * What `store.audit(runId)` returns: the stop tree (workflow → tasks → turns) and the policy
 * decisions with their reasons. `status` says whether the run finished, stopped resumably
 * (`context_canceled`, `awaiting_approval`, `error`, `max_session_runtime`), or has no result
 * yet (running, or crashed and resumable).
 */
export interface AuditReport {
  readonly runId: string;
  readonly name?: string;
  readonly createdAt: number;
  /**
   * The run this one was forked from, and the point (the record's `forkOf`); for a graph run's
   * fork, `rerun` lists the tasks it ran again (from its `workflow_start` event): every other
   * task's result is the source's.
   */
  readonly forkOf?: ForkOrigin;
  /** The recorded run this one replays and its suite, for a run `kernel.evaluate` made (the record's `evalOf`). */
  readonly evalOf?: EvalOrigin;
  /** Set when the run is a delegated child (`agentTool`): the run and the tool call that started it (the record's `parent`). */
  readonly parent?: RunParent;
  readonly status: 'finished' | 'resumable' | 'incomplete';
  readonly workflow: {
    readonly stop?: StopCondition;
    readonly metrics: WorkflowMetrics;
    readonly bound?: StopBound;
  };
  /** Every task that ended, in the order they ended (a graph's fan-out items included, as `<taskId>[i]`). */
  readonly tasks: readonly AuditTask[];
  /** A list run: set when the run has no result and its latest checkpoint was taken inside a task. */
  readonly active?: AuditActiveTask;
  /**
   * A graph run without a result: every task running (or halted for a resumable reason) at its
   * latest checkpoint, each of which a resume continues. Absent for a list run (see `active`).
   */
  readonly running?: readonly AuditActiveTask[];
  /** A graph run: every task of the record in task order, with its dependencies and where it stands. Absent for a list. */
  readonly graph?: { readonly tasks: readonly AuditGraphTask[] };
  readonly policyDecisions: readonly AuditPolicyDecision[];
  /** The run's `error` events in order: the cause of an `error` stop. */
  readonly errors: readonly AuditError[];
  /** The strategy `auto` chose, and why (absent when the strategy was given). */
  readonly strategy?: { readonly name: string; readonly reason: string; readonly by: 'rules' | 'classifier'; readonly at: number };
  /** Each time a resume, fork or worker took the run up with a changed workflow, on purpose (`acceptChange`). */
  readonly workflowChanges?: readonly { readonly at: number; readonly changes: readonly string[]; readonly acceptedBy: string }[];
  /** Every guardrail that tripped, in order: those that stopped a task and those that made the model revise (docs/guardrails.md). */
  readonly guardrailTrips?: readonly AuditGuardrailTrip[];
  /** Plans created or revised by the plan strategies, in order (empty for `react`). */
  readonly plans: readonly { readonly at: number; readonly kind: 'created' | 'revised'; readonly steps: readonly string[]; readonly reason?: string }[];
  readonly events: number;
  /**
   * The runs this run's tool calls delegated to (`agentTool`), each with its own stop tree, in the
   * order they started. Set in what `dualloop audit` prints and its `--json`, which read the child
   * runs from the store; `store.audit()` explains one run and leaves it out.
   */
  readonly children?: readonly AuditChild[];
}

/** A run delegated by one of the audited run's tool calls, with its own stop tree. */
export interface AuditChild {
  readonly runId: string;
  /** The delegating tool call (the child record's `parent.toolCallId`). */
  readonly toolCallId: string;
  /** Where the call is in the audited run: absent while its turn has no record yet (the turn running, or cut by a crash). */
  readonly toolName?: string;
  readonly taskId?: string;
  readonly taskIndex?: number;
  readonly turn?: number;
  readonly report: AuditReport;
}

/** A `guardrail_tripped` event, as the audit lists it. */
export interface AuditGuardrailTrip {
  readonly at: number;
  readonly seq: number;
  readonly taskId: string;
  readonly turn: number;
  readonly name: string;
  readonly on: GuardrailStage;
  readonly mode: GuardrailMode;
  readonly reason: string;
  readonly toolCallId?: string;
}
