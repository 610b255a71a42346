/**
 * The protocol between the turn machine (machines/turn.machine.ts) and the services the
 * composition root provides to it. The machine only holds data; every effect answers with an event.
 */
import type { InnerBounds } from './bounds.js';
import type { ErrorScope } from './events.js';
import type { Message } from './messages.js';
import type { ModelResponse, ModelResult } from './model.js';
import type { DeliveryMode, MessageQueues, QueuedMessage, QueueName } from './queues.js';
import type { TaskResult, TurnResult, WrapUpResult } from './results.js';
import type { StopCondition } from './stop.js';
import type { ToolResult } from './tool.js';
import type { GuardrailSpend, GuardrailTrip } from './guardrails.js';
import type { OutputCheck, OutputState } from './typed-output.js';
import type { Usage } from './usage.js';

/** A JSON Schema object, as stored with a run (a task's `output`). */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** What a task does when one of its fan-out items stops early (`forEach` tasks). */
export type ForEachFailure = 'fail' | 'collect';

/** A fan-out item: the `forEach` task it belongs to, its 0-based position, and its value. */
export interface TaskItem {
  readonly of: string;
  readonly position: number;
  readonly value: unknown;
}

export interface TaskSpec {
  readonly id: string;
  /** 0-based position in the workflow (a fan-out item has its task's). */
  readonly index: number;
  /** As given; in a running task (and its result), its placeholders filled. */
  readonly description: string;
  readonly bounds: InnerBounds;
  /** Typed output: the final answer must be JSON matching this schema (docs/workflows.md). */
  readonly output?: JsonSchema;
  /** Graph workflows: the ids of the tasks that must end naturally before this one starts. */
  readonly dependsOn?: readonly string[];
  /** Fan-out: `<taskId>.output[.<path>]`, an array in that task's output; one item per element. */
  readonly forEach?: string;
  readonly forEachFailure?: ForEachFailure;
  /** The names of the kernel's guardrails this task runs (docs/guardrails.md); absent: all of them. */
  readonly guardrails?: readonly string[];
  /** Set on the spec of one fan-out item (id `<taskId>[<position>]`). */
  readonly item?: TaskItem;
}

export interface TurnSettings {
  readonly wrapUpOnBound: boolean;
  readonly steeringMode: DeliveryMode;
  readonly followUpMode: DeliveryMode;
}

/** Workflow totals before this task, so that the task can stop on the workflow's budget too. */
export interface WorkflowBudget {
  readonly tokensBefore: number;
  readonly costBefore: number;
  readonly maxTokens?: number;
  readonly maxCostUsd?: number;
}

/** Repeated-call detector state: the key of the last tool call and how many times in a row it came. */
export interface RepeatState {
  readonly key: string;
  readonly count: number;
}

/** A task's progress, as saved after every turn and restored on resume. */
export interface TurnProgress {
  readonly messages: readonly Message[];
  readonly turns: readonly TurnResult[];
  readonly toolCalls: number;
  readonly usage: Usage;
  readonly costUsd: number;
  readonly elapsedMs: number;
  readonly repeat: RepeatState;
  /** The last turn produced no tool calls: follow-ups are due at the next turn. */
  readonly followUpDue: boolean;
  /**
   * A turn whose model call answered with tool calls that have not all run (the task parked for
   * approval): a resume continues at ACT with these calls instead of calling the model again.
   */
  readonly pending?: { readonly turn: number; readonly response: ModelResponse };
  /**
   * Typed outputs: answers that did not match the task's `output` schema and went back to the
   * model. Absent when none did (and in checkpoints written before typed outputs).
   */
  readonly outputRepairs?: number;
}

/** Where a resume continues a task from: the state after its last completed turn. */
export interface TaskResumePoint {
  readonly progress: TurnProgress;
  readonly queues: MessageQueues;
  readonly delivered: readonly number[];
  readonly modelCallIndex: number;
}

export interface TurnInput {
  readonly runId: string;
  readonly task: TaskSpec;
  readonly settings: TurnSettings;
  readonly budget: WorkflowBudget;
  readonly progress: TurnProgress;
  readonly queues: MessageQueues;
  readonly modelCallIndex: number;
  /** Clock time at which this task segment started. */
  readonly startedAt: number;
}

/** The turn in progress. */
export interface CurrentTurn {
  readonly turn: number;
  readonly startedAt: number;
  readonly wrapUp: boolean;
  readonly result: ModelResult | undefined;
  readonly toolResults: readonly ToolResult[] | undefined;
  /** A failure that ends the task `error` at this turn's CHECK_STOP. */
  readonly failure: PendingFailure | undefined;
  /** Set once the model asked for tools: where a task parked for approval resumes (at ACT). */
  readonly resumeAt: TaskResumePoint | undefined;
  /** Calls of this turn's batch that started (TOOL_STARTED): counted in `toolCalls` when a deadline or cancel cuts the batch. */
  readonly toolsStarted: number;
  /** A typed task's answer without tool calls, checked against its `output` schema (by the model caller). */
  readonly output: OutputCheck | undefined;
  /** An input or output guardrail that tripped on this turn's call (tool guardrails mark their results). */
  readonly guardrail?: GuardrailTrip;
}

/** What does not change while a task segment runs. */
export interface TaskFrame {
  readonly settings: TurnSettings;
  readonly budget: WorkflowBudget;
  /** Clock time at which this segment started, and the task's runtime before it (resume). */
  readonly startedAt: number;
  readonly elapsedBeforeMs: number;
}

/** Steering and follow-up messages: waiting, delivered during this task, and whether follow-ups are due. */
export interface Inbox {
  readonly queues: MessageQueues;
  readonly delivered: readonly number[];
  /** The last turn produced no tool calls: follow-ups are due at the next turn. */
  readonly followUpDue: boolean;
}

/** A failure that ends the task `error` at the next CHECK_STOP (its `error` event is already emitted). */
export interface PendingFailure {
  readonly scope: ErrorScope;
  readonly message: string;
}

/**
 * The turn machine's context. Kept under 20 top-level keys on purpose: XState copies the context
 * with `Object.assign({}, …)` on every assign, and V8 falls off its fast path at 20 properties
 * (ADR/0006-context-shape.md). Group new fields rather than adding keys.
 */
export interface TurnContext {
  readonly runId: string;
  readonly task: TaskSpec;
  readonly frame: TaskFrame;
  readonly messages: readonly Message[];
  readonly turns: readonly TurnResult[];
  readonly turn: number;
  readonly toolCalls: number;
  readonly usage: Usage;
  readonly costUsd: number;
  readonly repeat: RepeatState;
  readonly inbox: Inbox;
  readonly modelCallIndex: number;
  /** Clock time of the last event that carried one. */
  readonly lastAt: number;
  readonly current: CurrentTurn;
  readonly resumePoint: TaskResumePoint;
  readonly stop: StopCondition | undefined;
  readonly wrapUp: WrapUpResult | undefined;
  /** The compactor actor exists: spawned the first time COMPACT was entered, kept for the rest of the task. */
  readonly compactorSpawned: boolean;
  /** Typed outputs: repairs sent so far and the answer that matched (`{ repairs: 0 }` for other tasks). */
  readonly output: OutputState;
}

/** Output of the turn machine: the task's result plus what the workflow must carry forward. */
export interface TurnOutput {
  readonly result: TaskResult;
  readonly delivered: readonly number[];
  readonly modelCallIndex: number;
  readonly resumePoint: TaskResumePoint;
}

// ---- requests the machine sends to its services ----

export interface ModelCallRequest {
  readonly type: 'model.call';
  readonly messages: readonly Message[];
  readonly turn: number;
  readonly wrapUp: boolean;
  readonly callIndex: number;
}

export interface ToolRunRequest {
  readonly type: 'tools.run';
  readonly turn: number;
  readonly calls: NonNullable<Extract<ModelResult, { type: 'response' }>['toolCalls']>;
  /** Tool-call slots left under `maxToolCalls`; calls beyond them are refused with an error result. */
  readonly slots: number;
  /**
   * The task as the turn's calls find it, for a call that delegates (`agentTool`): its spec and
   * spend so far, when its deadline fires, and where a resume continues the turn (this very turn,
   * at ACT: saved before a child run starts, so that a crash does not ask the model again).
   */
  readonly task: TaskAtCall;
}

export interface TaskAtCall {
  readonly spec: TaskSpec;
  readonly tokens: number;
  readonly costUsd: number;
  readonly toolCalls: number;
  /** Clock time at which the task's `maxRuntimeMs` is reached. */
  readonly deadlineAt: number;
  readonly resumeAt: TaskResumePoint | undefined;
}

/** What the stop evaluator sees at CHECK_STOP. */
export interface InnerStopState {
  readonly runId: string;
  readonly task: TaskSpec;
  readonly budget: WorkflowBudget;
  readonly turn: number;
  readonly toolCalls: number;
  readonly usage: Usage;
  readonly costUsd: number;
  readonly repeat: RepeatState;
  readonly elapsedBeforeMs: number;
  readonly startedAt: number;
  readonly result?: ModelResult;
  readonly toolResults?: readonly ToolResult[];
  readonly failure?: PendingFailure;
  /** Steering or follow-up messages are waiting: a model that would stop goes on instead. */
  readonly pendingMessages: boolean;
  readonly messages: readonly Message[];
  /** A typed task's answer without tool calls, checked against its schema. */
  readonly output?: OutputCheck;
  /** Repairs sent so far (typed outputs); the task stops `invalid_output` once they reach `maxOutputRepairs`. */
  readonly outputRepairs: number;
  /** An input or output guardrail that tripped on this turn's call. */
  readonly guardrail?: GuardrailTrip;
}

export interface StopEvaluateRequest {
  readonly type: 'stop.evaluate';
  readonly state: InnerStopState;
}

// ---- events the machine receives ----

export type TurnEvent =
  /** `output`: set for a typed task's answer without tool calls, checked against the task's schema. */
  /**
   * `guardrail`: an input guardrail tripped (the model was not called) or an output one tripped on
   * the answer. `guardrailSpend`: what the call's guardrails spent, the task's too.
   */
  | { readonly type: 'MODEL_DONE'; readonly result: ModelResult; readonly at: number; readonly output?: OutputCheck; readonly guardrail?: GuardrailTrip; readonly guardrailSpend?: GuardrailSpend }
  | { readonly type: 'TOOLS_DONE'; readonly results: readonly ToolResult[]; readonly at: number }
  /**
   * `count` calls of the running batch started (each uses a tool-call slot even if the batch is
   * cut). Sent only right before something that can cut the batch (ADR/0393).
   */
  | { readonly type: 'TOOL_STARTED'; readonly count: number }
  | { readonly type: 'TOOLS_FAILED'; readonly failure: PendingFailure; readonly results: readonly ToolResult[]; readonly at: number }
  /**
   * `repair`: set when the task goes on after a typed answer that did not match: it goes back to
   * the model as repair `number` of at most `of` (`maxOutputRepairs`).
   */
  | { readonly type: 'STOP_DECIDED'; readonly stop: StopCondition | undefined; readonly at: number; readonly repair?: OutputRepair }
  | { readonly type: 'CHECKPOINT_FAILED'; readonly message: string; readonly at: number }
  | { readonly type: 'STEER'; readonly message: QueuedMessage }
  | { readonly type: 'FOLLOW_UP'; readonly message: QueuedMessage }
  | { readonly type: 'CLEAR_QUEUE'; readonly queue: QueueName }
  | { readonly type: 'CANCEL'; readonly stop: StopCondition };

/** A typed answer sent back to the model: repair `number` of at most `of`. */
export interface OutputRepair {
  readonly number: number;
  readonly of: number;
}

/** Data for the per-turn checkpoint written at NEXT_TURN. */
export interface TurnCheckpoint {
  readonly runId: string;
  readonly task: TaskSpec;
  readonly point: TaskResumePoint;
}
