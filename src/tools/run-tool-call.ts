import type { ToolInvocation } from '../contracts/hooks.js';
import type { ToolCall } from '../contracts/messages.js';
import type { Tool, ToolCallPlace, ToolResult } from '../contracts/tool.js';
import { DELEGATE, isAgentTool, isDelegatedOutput, isParkedOutput } from '../contracts/delegation.js';
import type { TaskAtCall } from '../contracts/turn-protocol.js';
import { describeError } from '../errors.js';
import type { Guardrail, GuardrailSpend } from '../contracts/guardrails.js';
import { addUsage } from '../contracts/usage.js';
import { guardToolCall, guardToolResult, type ToolGuardScope } from '../guardrails/tool-guardrails.js';
import { boundValue } from './bounded-value.js';
import { CANCELLED, executeTool } from './execute-tool.js';
import { ToolHookFailure } from './tool-hook-failure.js';
import { checkToolPolicy, parkedResult } from './tool-policy.js';
import type { ToolCallDeps, ToolRun } from './tool-port.js';
import { executedResult, refusedResult } from './tool-results.js';
import { malformedArgumentsResult, unknownToolResult, validateArguments } from './validate-arguments.js';

export { ToolHookFailure } from './tool-hook-failure.js';

export interface ToolCallScope {
  readonly deps: ToolCallDeps;
  readonly run: ToolRun;
  /** The run's tools by name: the kernel's own plus its opened tool sources' (`RunTools`, ADR/0143). */
  readonly tools: ReadonlyMap<string, Tool>;
  readonly taskId: string;
  readonly taskIndex: number;
  readonly turn: number;
  readonly spent: { readonly tokens: number; readonly costUsd: number };
  /** The task as the turn's calls find it (for a delegating call). */
  readonly task: TaskAtCall;
  /** Aborts when the task stops or another call of the batch failed a hook. */
  readonly signal: AbortSignal;
  /** Told when the call starts (after `tool_execution_start`): it uses a slot even if the turn is cut. */
  readonly onStart?: () => void;
  /** The task's guardrails (docs/guardrails.md): its `tool_call` and `tool_result` ones run here. */
  readonly guardrails?: readonly Guardrail[];
}

/**
 * One tool call, start to end: validation, replay of a recorded result, policy, before hook,
 * execution under its timeout, after hook, recording. Every failure becomes an error result the
 * model sees, except a throwing hook or policy gate, which throws `ToolHookFailure`.
 *
 * `tool_execution_end` follows every `tool_execution_start`, exactly once: with the result; with the
 * hook failure before it is thrown; or, when the call is cancelled (the task stopped), at once from
 * the abort, since the run may end before the cancelled call's promise settles.
 */
export async function runToolCall(call: ToolCall, scope: ToolCallScope, position = 0): Promise<ToolResult> {
  const { run } = scope;
  const turnScope = { taskId: scope.taskId, taskIndex: scope.taskIndex, turn: scope.turn };
  const startedAt = scope.deps.clock.now();
  let ended = false;
  const end = (outcome: { result: unknown; isError: boolean; executed: boolean; replayed?: boolean; args?: unknown; proposedArgs?: unknown }) => {
    if (ended) return;
    ended = true;
    run.emit({
      type: 'tool_execution_end',
      ...turnScope,
      toolCallId: call.id,
      name: call.name,
      result: outcome.result,
      isError: outcome.isError,
      executed: outcome.executed,
      replayed: outcome.replayed === true,
      durationMs: Math.max(0, scope.deps.clock.now() - startedAt),
      ...(outcome.proposedArgs === undefined ? {} : { executedArgs: outcome.args }),
    });
  };
  const onCancel = () => end({ result: CANCELLED, isError: true, executed: true });
  run.emit({ type: 'tool_execution_start', ...turnScope, toolCallId: call.id, name: call.name, args: call.args });
  scope.onStart?.();
  if (scope.signal.aborted) onCancel();
  else scope.signal.addEventListener('abort', onCancel, { once: true });
  try {
    const tally: SpendTally = { spent: undefined };
    const result = withCharge(scope.deps.redactor.value(await resolveCall(call, scope, { ...turnScope, position }, tally)), tally);
    end(result);
    return result;
  } catch (error) {
    end({ result: error instanceof Error ? error.message : String(error), isError: true, executed: false });
    throw error;
  } finally {
    scope.signal.removeEventListener('abort', onCancel);
  }
}

async function resolveCall(call: ToolCall, scope: ToolCallScope, turnScope: { taskId: string; taskIndex: number; turn: number; position: number }, tally: SpendTally): Promise<ToolResult> {
  const { deps, run } = scope;
  const tool = scope.tools.get(call.name);
  if (tool === undefined) return unknownToolResult(call, scope.tools);
  if (call.argumentsError !== undefined) return malformedArgumentsResult({ ...call, argumentsError: call.argumentsError });
  if (run.resumed && run.store !== undefined) {
    const recorded = await run.store.getToolResult(run.runId, call.id);
    if (recorded !== undefined && isRecordOf(recorded, call, turnScope)) {
      const { at: _place, ...replayed } = recorded;
      return { ...replayed, replayed: true };
    }
  }
  let args = validateArguments(tool, call.args);
  if (!args.ok) return refusedResult(call, args.message);

  const guard = guardScope(scope, tally);
  const tripped = guard === undefined ? undefined : await guardToolCall(call, args.value, guard);
  if (tripped !== undefined) return tripped;

  const policy = await checkToolPolicy(call, args.value, scope);
  if (policy.refusal !== undefined) return policy.refusal;
  // An approver's edit is what runs, checked as the model's arguments were; invalid, nothing runs (ADR/0470).
  const { edit } = policy;
  if (edit !== undefined) {
    args = validateArguments(tool, edit.args);
    if (!args.ok) throw new ToolHookFailure('policy', `approval ${edit.approvalId}: the approver's arguments are invalid, so the call was not run: ${args.message}`);
  }

  const invocation: ToolInvocation = { runId: run.runId, taskId: scope.taskId, turn: scope.turn, toolCallId: call.id, name: call.name, args: args.value };
  const { beforeToolCall, afterToolCall } = deps.tools;
  if (beforeToolCall !== undefined) {
    const decision = await guardHook('beforeToolCall', () => beforeToolCall(invocation, scope.signal));
    if (decision !== undefined && 'block' in decision) return refusedResult(call, `blocked: ${decision.block}`);
    if (decision !== undefined && 'args' in decision) {
      args = validateArguments(tool, decision.args);
      if (!args.ok) return refusedResult(call, `arguments from beforeToolCall are invalid: ${args.message}`);
    }
  }

  try {
    // Earlier calls' results are committed before this one runs (ADR/0492).
    const earlier = run.recordings.committed();
    if (earlier !== undefined) await earlier;
    await run.confirmLease();
  } catch (error) {
    throw new ToolHookFailure('store', `tool "${call.name}" was not run: ${describeError(error)}`);
  }
  const outcome = await execute(tool, call, args.value, scope, turnScope);
  // A child run parked for approval: so does this run (nothing is recorded; a resume runs the call again and continues the child).
  // Only an agent tool's own value is looked into: any other tool's may be hostile (a throwing Proxy).
  const fromAgent = isAgentTool(tool) && !outcome.isError;
  if (fromAgent && isParkedOutput(outcome.value)) return parkedResult(call, outcome.value, scope);
  const delegated = fromAgent && isDelegatedOutput(outcome.value) ? outcome.value : undefined;
  let value = delegated === undefined ? outcome.value : delegated.value;
  let isError = delegated === undefined ? outcome.isError : delegated.isError;
  if (afterToolCall !== undefined) {
    const replacement = await guardHook('afterToolCall', () =>
      afterToolCall({ ...invocation, args: args.value }, { result: value, isError }, scope.signal),
    );
    if (replacement !== undefined) {
      if ('result' in replacement) value = replacement.result;
      if (replacement.isError !== undefined) isError = replacement.isError;
    }
  }
  // The model sees the result as it is recorded, secrets redacted: the same live and replayed (ADR/0100).
  const ran = executedResult(call, args.value, value, isError, outcome.terminate && !isError, deps.tools.limits);
  const built = guard === undefined ? ran : await guardToolResult(call, ran, guard);
  // Proposed and executed arguments are kept apart when an approver edited them.
  const executed = edit === undefined ? built : { ...built, proposedArgs: call.args };
  const result = withCharge(deps.redactor.value(delegated === undefined ? executed : { ...executed, delegated: delegated.run }), tally);
  // A call cut by a cancel did not complete: a resume runs it again instead of replaying the cut.
  if (run.store !== undefined && outcome.cancelled !== true) {
    try {
      const at: ToolCallPlace = { taskIndex: turnScope.taskIndex, turn: turnScope.turn, position: turnScope.position };
      // Handed over, not awaited: an asynchronous store commits it with the turn's checkpoint (ADR/0492).
      run.recordings.hand(run.store.recordToolResult(run.runId, { ...result, at }), call.name);
    } catch (error) {
      throw new ToolHookFailure('store', `recording the result of tool "${call.name}" failed: ${describeError(error)}`);
    }
  }
  return result;
}

/** What the task's tool guardrails need, or nothing when it has none; what they spend goes to `tally`. */
function guardScope(scope: ToolCallScope, tally: SpendTally): ToolGuardScope | undefined {
  const guardrails = scope.guardrails ?? [];
  if (guardrails.length === 0) return undefined;
  const { run } = scope;
  return {
    guardrails,
    runId: run.runId,
    taskId: scope.taskId,
    taskIndex: scope.taskIndex,
    turn: scope.turn,
    signal: scope.signal,
    clock: scope.deps.clock,
    emit: (body) => run.emit(body),
    charge: (usage, costUsd) => {
      tally.spent = { usage: addUsage(tally.spent?.usage ?? { inputTokens: 0, outputTokens: 0 }, usage), costUsd: (tally.spent?.costUsd ?? 0) + costUsd };
      run.spend?.charge(usage, costUsd);
    },
  };
}

/** What a call's guardrails spent, carried to its task on the result (`ToolResult.charged`), whatever became of the call. */
interface SpendTally {
  spent: GuardrailSpend | undefined;
}

function withCharge(result: ToolResult, tally: SpendTally): ToolResult {
  return tally.spent === undefined ? result : { ...result, charged: tally.spent };
}

/**
 * Whether a result recorded under this call's id is this call's (ADR 0304): a model may answer
 * `call_0` on every turn, and another call's result must never stand in for this one. A record
 * without its place (written before it was kept) counts when it is of the same tool.
 */
function isRecordOf(recorded: ToolResult, call: ToolCall, place: ToolCallPlace): boolean {
  const at = recorded.at;
  if (at === undefined) return recorded.name === call.name;
  return at.taskIndex === place.taskIndex && at.turn === place.turn && at.position === place.position;
}

async function guardHook<T>(name: string, hook: () => T | Promise<T>): Promise<T> {
  try {
    return await hook();
  } catch (error) {
    throw new ToolHookFailure('hook', `${name} threw: ${describeError(error)}`);
  }
}

/** Runs `execute` under the tool's timeout (on the injected clock) and the batch signal. */
function execute(tool: Tool, call: ToolCall, args: unknown, scope: ToolCallScope, turnScope: { taskId: string; taskIndex: number; turn: number; position: number }) {
  const { deps, run } = scope;
  const { position: _position, ...eventScope } = turnScope;
  return executeTool(tool, args, {
    signal: scope.signal,
    setTimer: (callback, delayMs) => deps.clock.setTimeout(callback, delayMs),
    clearTimer: (handle) => deps.clock.clearTimeout(handle),
    context: (signal) => ({
      signal,
      toolCallId: call.id,
      runId: run.runId,
      taskId: scope.taskId,
      update: (progress: unknown) => {
        if (!signal.aborted) run.emit({ type: 'tool_execution_update', ...eventScope, toolCallId: call.id, name: call.name, progress: boundValue(progress, { maxChars: deps.tools.limits.toolResultChars, maxDepth: deps.tools.limits.toolResultDepth }).value });
      },
      // Only an agent tool reads it (agentTool, docs/delegation.md).
      ...(run.delegate === undefined || !isAgentTool(tool) ? {} : { [DELEGATE]: run.delegate({ toolCallId: call.id, ...turnScope, signal, task: scope.task }) }),
    }),
  });
}
