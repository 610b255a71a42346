/**
 * Control a run from any process through its store (ADR/0184): `cancelRun`, `steerRun` and
 * `approveRun`. The process running the run learns of a command within a second and acts on it as
 * on `abort()` / `steer()`; an approval answers a parked run for its next `resume`. What cannot be
 * done is a RunError naming the run and the reason, never a silent no-op.
 */
import { isResumableStop } from '../contracts/stop-rules.js';
import { isTaskOf } from '../contracts/task-id.js';
import { hasControlChannel, type ControlChannel, type ControlCommand } from '../contracts/control.js';
import type { ApprovalAnswer } from '../contracts/policy.js';
import type { CheckpointStore } from '../contracts/store.js';
import type { Tool, ToolSource } from '../contracts/tool.js';
import { approvalAnswerIssues } from '../policy/approval-answer.js';
import { editIssues } from '../policy/approval-edits.js';
import { pendingApprovals } from '../policy/pending-approvals.js';
import { ConfigError, RunError } from '../errors.js';
import { createRedactor, RedactValuesSchema } from '../redaction/secret-values.js';
import { zodIssues } from '../contracts/zod-issues.js';

/**
 * A command travels through the store, where it stays: it is redacted before it is written (ADR
 * 0301). Key-shaped tokens always; the values in `redact` too — this process does not know the
 * secrets the running kernel was configured with. The run receives the command as written.
 */
export interface ControlRedaction {
  /** Secret values (at least 4 characters each) to replace by `[redacted]` in the message or reason. */
  readonly redact?: readonly string[];
}

export interface ApproveOptions extends ControlRedaction {
  /** The approval id (a tool call's id, or `task:<taskId>`); may be left out when exactly one is pending. */
  readonly callId?: string;
  /** `'approve' | 'reject' | { decision: 'approve', args } | { decision: 'reject', message }` (`ApprovalAnswer`). */
  readonly answer: ApprovalAnswer;
  readonly reason?: string;
  /**
   * The run's tools (as given to its kernel): edited `args` are checked against the waiting tool's
   * schema before the answer is stored — a ConfigError naming the bad fields, and nothing stored.
   * Without them (or for a tool source's tool) the arguments are checked by the resume that applies them.
   */
  readonly tools?: readonly (Tool | ToolSource)[];
}

/** Asks the process running the run to stop it `context_canceled`; a parked or crashed run stops on its next resume. */
export async function cancelRun(store: CheckpointStore, runId: string, options: { readonly reason?: string } & ControlRedaction = {}): Promise<void> {
  const redact = commandRedactor(options);
  const channel = await openRun(store, runId);
  await channel.sendControl(runId, redact({ kind: 'cancel', ...(options.reason === undefined ? {} : { reason: options.reason }) }));
}

export interface SteerOptions extends ControlRedaction {
  /** The task to steer (a graph's tasks run at once); a task id of the run, or a fan-out item's (`review[2]`). */
  readonly taskId?: string;
}

/** Queues a steering message for the run, delivered as `steer()` (with `taskId`: `steer(message, { taskId })`) delivers it. */
export async function steerRun(store: CheckpointStore, runId: string, message: string, options: SteerOptions = {}): Promise<void> {
  if (typeof message !== 'string' || message.trim() === '') throw new RunError({ code: 'control_invalid', runId, message: `run ${runId}: a steering message must be a non-empty string` });
  const redact = commandRedactor(options);
  const channel = await openRun(store, runId);
  const { taskId } = options;
  if (taskId !== undefined) await requireTask(store, runId, taskId);
  await channel.sendControl(runId, redact({ kind: 'steer', message, ...(taskId === undefined ? {} : { taskId }) }));
}

/** A steer for a task the run does not have would wait forever: refused before it is stored. */
async function requireTask(store: CheckpointStore, runId: string, taskId: string): Promise<void> {
  const tasks = (await store.getRun(runId))?.tasks ?? [];
  if (isTaskOf(tasks, taskId)) return;
  throw new RunError({ code: 'control_invalid', runId, message: `run ${runId} has no task "${taskId}" (its tasks: ${tasks.map((task) => task.id).join(', ')})` });
}

/** Answers a pending approval of a parked run; returns the approval id answered. */
export async function approveRun(store: CheckpointStore, runId: string, options: ApproveOptions): Promise<string> {
  const shape = approvalAnswerIssues(options?.answer, 'answer');
  if (shape.length > 0) throw new ConfigError({ message: `Invalid answer for run ${runId}`, issues: shape });
  const redact = commandRedactor(options);
  const channel = await openRun(store, runId);
  const result = await store.loadResult(runId);
  if (result?.stop.reason !== 'awaiting_approval') {
    throw new RunError({ code: 'approval_not_pending', runId, message: `run ${runId} is not waiting for an approval (${result === undefined ? 'it has not parked' : `it stopped ${result.stop.reason}`})` });
  }
  const answered = await channel.approvalAnswers(runId);
  const waiting = (await pendingApprovals(store, runId)).filter((approval) => !answered.has(approval.approvalId));
  const pending = waiting.map((approval) => approval.approvalId);
  const approvalId = options.callId ?? (pending.length === 1 ? pending[0] : undefined);
  if (options.callId !== undefined && answered.has(options.callId)) {
    throw new RunError({ code: 'approval_answered', runId, message: `run ${runId}: approval ${options.callId} was already answered; an approval is answered once` });
  }
  if (approvalId === undefined || !pending.includes(approvalId)) {
    const list = pending.length === 0 ? 'none' : pending.join(', ');
    const what = approvalId === undefined ? 'name the approval with --call (callId)' : `approval ${approvalId} is not pending`;
    throw new RunError({ code: 'approval_not_pending', runId, message: `run ${runId}: ${what}; pending: ${list}` });
  }
  const edits = editIssues(approvalId, options.answer, waiting, options.tools ?? [], 'answer');
  if (edits.length > 0) throw new ConfigError({ message: `Invalid answer to approval ${approvalId} of run ${runId}`, issues: edits });
  const command: ControlCommand = { kind: 'approve', approvalId, answer: options.answer, ...(options.reason === undefined ? {} : { reason: options.reason }) };
  await channel.sendControl(runId, redact(command));
  return approvalId;
}

/** The command as the store may keep it; a `redact` value too short to be a secret is a ConfigError, before anything is sent. */
function commandRedactor(options: ControlRedaction): (command: ControlCommand) => ControlCommand {
  const parsed = RedactValuesSchema().optional().safeParse(options.redact);
  if (!parsed.success) throw new ConfigError({ message: 'Invalid control options', issues: zodIssues(parsed.error, 'redact') });
  const redactor = createRedactor({ redact: parsed.data ?? [], models: [] });
  return (command) => redactor.value(command);
}

async function openRun(store: CheckpointStore, runId: string): Promise<CheckpointStore & ControlChannel> {
  if (!hasControlChannel(store)) {
    throw new RunError({ code: 'control_unsupported', runId, message: `run ${runId}: the ${store.kind} store cannot carry commands between processes (use sqliteStore or postgresStore)` });
  }
  if ((await store.getRun(runId)) === undefined) throw new RunError({ code: 'run_not_found', runId, message: `run ${runId} does not exist in the ${store.kind} store` });
  const result = await store.loadResult(runId);
  if (result !== undefined && !isResumableStop(result.stop.reason)) {
    throw new RunError({ code: 'run_finished', runId, message: `run ${runId} already finished with ${result.stop.reason} (${result.stop.detail}); it takes no more commands` });
  }
  return store;
}
