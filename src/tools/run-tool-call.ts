import type { ToolInvocation } from '../contracts/hooks.js';
import type { ToolCall } from '../contracts/messages.js';
import type { PolicyVerdict } from '../contracts/policy.js';
import { isTerminatingOutput, type Tool, type ToolResult } from '../contracts/tool.js';
import { describeError } from '../errors.js';
import { redactString } from '../logging/redact.js';
import type { KernelDeps } from '../kernel/kernel-deps.js';
import type { RunRuntime } from '../kernel/run-runtime.js';
import { executedResult, refusedResult } from './tool-results.js';

/** A hook (before/after/policy) threw: the task ends `error`. */
export class ToolHookFailure extends Error {
  constructor(readonly scope: 'hook' | 'policy', message: string) {
    super(message);
  }
}

export interface ToolCallScope {
  readonly deps: KernelDeps;
  readonly run: RunRuntime;
  readonly taskId: string;
  readonly taskIndex: number;
  readonly turn: number;
  readonly spent: { readonly tokens: number; readonly costUsd: number };
  /** Aborts when the task stops or another call of the batch failed a hook. */
  readonly signal: AbortSignal;
}

/**
 * One tool call, start to end: validation, replay of a recorded result, policy, before hook,
 * execution under its timeout, after hook, recording. Every failure becomes an error result the
 * model sees, except a throwing hook or policy gate, which throws `ToolHookFailure`.
 */
export async function runToolCall(call: ToolCall, scope: ToolCallScope): Promise<ToolResult> {
  const { run } = scope;
  const turnScope = { taskId: scope.taskId, taskIndex: scope.taskIndex, turn: scope.turn };
  const startedAt = scope.deps.clock.now();
  run.emit({ type: 'tool_execution_start', ...turnScope, toolCallId: call.id, name: call.name, args: call.args });
  const result = await resolveCall(call, scope, turnScope);
  run.emit({
    type: 'tool_execution_end',
    ...turnScope,
    toolCallId: call.id,
    name: call.name,
    result: result.result,
    isError: result.isError,
    executed: result.executed,
    replayed: result.replayed === true,
    durationMs: Math.max(0, scope.deps.clock.now() - startedAt),
  });
  return result;
}

async function resolveCall(call: ToolCall, scope: ToolCallScope, turnScope: { taskId: string; taskIndex: number; turn: number }): Promise<ToolResult> {
  const { deps, run } = scope;
  const tool = deps.tools.get(call.name);
  if (tool === undefined) {
    const known = [...deps.tools.keys()].join(', ') || 'none';
    return refusedResult(call, `unknown tool "${call.name}" (available: ${known})`);
  }
  if (call.argumentsError !== undefined) return refusedResult(call, `invalid JSON arguments: ${call.argumentsError}`);
  if (run.resumed && run.store !== undefined) {
    const recorded = await run.store.getToolResult(run.runId, call.id);
    if (recorded !== undefined) return { ...recorded, replayed: true };
  }
  let args = validate(tool, call.args);
  if (!args.ok) return refusedResult(call, args.message);

  const refusal = await checkPolicy(call, args.value, scope);
  if (refusal !== undefined) return refusal;

  const invocation: ToolInvocation = { runId: run.runId, taskId: scope.taskId, turn: scope.turn, toolCallId: call.id, name: call.name, args: args.value };
  if (deps.beforeToolCall !== undefined) {
    const decision = await guardHook('beforeToolCall', () => deps.beforeToolCall!(invocation, scope.signal));
    if (decision !== undefined && 'block' in decision) return refusedResult(call, `blocked: ${decision.block}`);
    if (decision !== undefined && 'args' in decision) {
      args = validate(tool, decision.args);
      if (!args.ok) return refusedResult(call, `arguments from beforeToolCall are invalid: ${args.message}`);
    }
  }

  const outcome = await execute(tool, call, args.value, scope, turnScope);
  let value = outcome.value;
  let isError = outcome.isError;
  if (deps.afterToolCall !== undefined) {
    const replacement = await guardHook('afterToolCall', () =>
      deps.afterToolCall!({ ...invocation, args: args.value }, { result: value, isError }, scope.signal),
    );
    if (replacement !== undefined) {
      if ('result' in replacement) value = replacement.result;
      if (replacement.isError !== undefined) isError = replacement.isError;
    }
  }
  const result = executedResult(call, args.value, value, isError, outcome.terminate && !isError);
  if (run.store !== undefined) await run.store.recordToolResult(run.runId, result);
  return result;
}

type Validated = { ok: true; value: unknown } | { ok: false; message: string };

function validate(tool: Tool, args: unknown): Validated {
  const parsed = tool.parameters.safeParse(args);
  if (parsed.success) return { ok: true, value: parsed.data };
  const details = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(arguments)'}: ${issue.message}`).join('; ');
  return { ok: false, message: `invalid arguments for "${tool.name}": ${details}` };
}

async function guardHook<T>(name: string, hook: () => T | Promise<T>): Promise<T> {
  try {
    return await hook();
  } catch (error) {
    throw new ToolHookFailure('hook', redactString(`${name} threw: ${describeError(error)}`));
  }
}

async function checkPolicy(call: ToolCall, args: unknown, scope: ToolCallScope): Promise<ToolResult | undefined> {
  const { deps, run } = scope;
  const gate = deps.policy.checkToolCall;
  if (gate === undefined) return undefined;
  let verdict: PolicyVerdict;
  try {
    verdict = await gate({ runId: run.runId, taskId: scope.taskId, toolCallId: call.id, name: call.name, args, spent: scope.spent }, scope.signal);
  } catch (error) {
    throw new ToolHookFailure('policy', redactString(`policy gate threw on tool "${call.name}": ${describeError(error)}`));
  }
  const decision = { taskId: scope.taskId, taskIndex: scope.taskIndex, toolCallId: call.id, toolName: call.name };
  if (verdict.decision === 'require_approval') {
    const approvalId = verdict.approvalId ?? call.id;
    const answer = run.approvals.get(approvalId);
    if (answer === 'approve') {
      run.emit({ type: 'policy_decision', subject: 'tool', ...decision, decision: 'allow', reason: `approved: ${verdict.reason}`, approvalId });
      return undefined;
    }
    if (answer === 'reject') {
      run.emit({ type: 'policy_decision', subject: 'tool', ...decision, decision: 'deny', reason: `approval rejected: ${verdict.reason}`, approvalId });
      return refusedResult(call, `rejected by the approver: ${verdict.reason}`, { policy: { decision: 'deny', reason: verdict.reason, approvalId } });
    }
    run.emit({ type: 'policy_decision', subject: 'tool', ...decision, decision: 'require_approval', reason: verdict.reason, approvalId });
    return refusedResult(call, `awaiting approval (${approvalId}): ${verdict.reason}`, {
      policy: { decision: 'require_approval', reason: verdict.reason, approvalId },
    });
  }
  run.emit({ type: 'policy_decision', subject: 'tool', ...decision, decision: verdict.decision, reason: verdict.reason ?? 'allowed' });
  if (verdict.decision === 'allow') return undefined;
  return refusedResult(call, `denied by policy: ${verdict.reason}`, {
    policy: { decision: 'deny', reason: verdict.reason, ...(verdict.halt === true ? { halt: true } : {}) },
  });
}

interface ExecutionOutcome {
  readonly value: unknown;
  readonly isError: boolean;
  readonly terminate: boolean;
}

/** Runs `execute` under the tool's timeout and the batch signal; a tool that ignores its signal is still cut. */
async function execute(
  tool: Tool,
  call: ToolCall,
  args: unknown,
  scope: ToolCallScope,
  turnScope: { taskId: string; taskIndex: number; turn: number },
): Promise<ExecutionOutcome> {
  const { deps, run } = scope;
  const controller = new AbortController();
  const onOuterAbort = () => controller.abort(scope.signal.reason);
  scope.signal.addEventListener('abort', onOuterAbort, { once: true });
  let timer: unknown;
  const stopped = new Promise<ExecutionOutcome>((resolve) => {
    const settle = () => {
      const timedOut = controller.signal.reason instanceof ToolTimeout;
      resolve({ value: timedOut ? `timed out after ${tool.timeoutMs} ms` : 'cancelled: the task stopped', isError: true, terminate: false });
    };
    controller.signal.addEventListener('abort', settle, { once: true });
    if (tool.timeoutMs !== undefined) timer = deps.clock.setTimeout(() => controller.abort(new ToolTimeout()), tool.timeoutMs);
  });
  const context = {
    signal: controller.signal,
    toolCallId: call.id,
    runId: run.runId,
    taskId: scope.taskId,
    update: (progress: unknown) => {
      if (!controller.signal.aborted) run.emit({ type: 'tool_execution_update', ...turnScope, toolCallId: call.id, name: call.name, progress });
    },
  };
  const running = (async (): Promise<ExecutionOutcome> => {
    try {
      const output = await tool.execute(args, context);
      return isTerminatingOutput(output)
        ? { value: output.value, isError: false, terminate: true }
        : { value: output, isError: false, terminate: false };
    } catch (error) {
      return { value: error, isError: true, terminate: false };
    }
  })();
  try {
    return await Promise.race([running, stopped]);
  } finally {
    if (timer !== undefined) deps.clock.clearTimeout(timer);
    scope.signal.removeEventListener('abort', onOuterAbort);
  }
}

class ToolTimeout extends Error {
  constructor() {
    super('tool timed out');
  }
}
