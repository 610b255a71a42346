import type { ToolCall } from '../contracts/messages.js';
import type { ToolResult } from '../contracts/tool.js';
import type { PendingFailure } from '../contracts/turn-protocol.js';
import { runToolCall, ToolHookFailure, type ToolCallScope } from './run-tool-call.js';
import type { ToolExecution } from './tool-port.js';
import { refusedResult } from './tool-results.js';

export type BatchOutcome =
  | { readonly ok: true; readonly results: readonly ToolResult[] }
  | { readonly ok: false; readonly failure: PendingFailure; readonly results: readonly ToolResult[] };

/**
 * Runs the tool calls of one turn and returns their results in source order.
 * - The first `slots` calls may run; the rest get an error result (the tool-call bound is hard).
 * - `sequential`: one at a time. `parallel`: all at once. `batch`: consecutive calls to tools
 *   marked `parallel` run together; any other call runs alone, after what came before it.
 * - `concurrency` caps calls running at once in the concurrent groups.
 * A throwing hook aborts the calls still running and fails the batch with the results so far.
 */
export async function runToolBatch(
  calls: readonly ToolCall[],
  slots: number,
  mode: ToolExecution,
  concurrency: number,
  scope: Omit<ToolCallScope, 'signal'>,
  signal: AbortSignal,
): Promise<BatchOutcome> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const callScope: ToolCallScope = { ...scope, signal: controller.signal };
  const results: (ToolResult | undefined)[] = new Array(calls.length);
  const runnable = calls.slice(0, slots);
  for (let index = slots; index < calls.length; index += 1) {
    const call = calls[index]!;
    results[index] = refusedResult(call, `tool-call bound reached (maxToolCalls); this call was not run`, { usedSlot: false });
  }
  try {
    for (const group of groupCalls(runnable, mode, scope)) {
      // Cancelled (the task stopped): calls not yet started never start, and emit no events.
      if (controller.signal.aborted) return { ok: true, results: results.filter((result): result is ToolResult => result !== undefined) };
      await runGroup(group, concurrency, callScope, results, (reason) => controller.abort(reason));
    }
    // Refused calls still get start/end events, after the ones that ran.
    for (let index = slots; index < calls.length; index += 1) emitRefused(calls[index]!, results[index]!, scope);
    return { ok: true, results: results as ToolResult[] };
  } catch (error) {
    controller.abort(error);
    const failure: PendingFailure =
      error instanceof ToolHookFailure ? { scope: error.scope, message: error.message } : { scope: 'internal', message: String(error) };
    return { ok: false, failure, results: results.filter((result): result is ToolResult => result !== undefined) };
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

interface IndexedCall {
  readonly call: ToolCall;
  readonly index: number;
}

function groupCalls(calls: readonly ToolCall[], mode: ToolExecution, scope: Omit<ToolCallScope, 'signal'>): IndexedCall[][] {
  const indexed = calls.map((call, index) => ({ call, index }));
  if (mode === 'sequential') return indexed.map((call) => [call]);
  if (mode === 'parallel') return indexed.length === 0 ? [] : [indexed];
  const groups: IndexedCall[][] = [];
  let parallelGroup: IndexedCall[] | undefined;
  for (const entry of indexed) {
    if (scope.tools.get(entry.call.name)?.executionMode === 'parallel') {
      if (parallelGroup === undefined) {
        parallelGroup = [];
        groups.push(parallelGroup);
      }
      parallelGroup.push(entry);
    } else {
      parallelGroup = undefined;
      groups.push([entry]);
    }
  }
  return groups;
}

async function runGroup(
  group: readonly IndexedCall[],
  concurrency: number,
  scope: ToolCallScope,
  results: (ToolResult | undefined)[],
  abortBatch: (reason: unknown) => void,
): Promise<void> {
  if (group.length === 1) {
    const only = group[0]!;
    results[only.index] = await runToolCall(only.call, scope, only.index);
    return;
  }
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < group.length && !scope.signal.aborted) {
      const entry = group[next]!;
      next += 1;
      try {
        results[entry.index] = await runToolCall(entry.call, scope, entry.index);
      } catch (error) {
        abortBatch(error);
        throw error;
      }
    }
  };
  const workers = Array.from({ length: Math.min(concurrency, group.length) }, worker);
  const settled = await Promise.allSettled(workers);
  const failed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}

function emitRefused(call: ToolCall, result: ToolResult, scope: Omit<ToolCallScope, 'signal'>): void {
  const turnScope = { taskId: scope.taskId, taskIndex: scope.taskIndex, turn: scope.turn };
  scope.run.emit({ type: 'tool_execution_start', ...turnScope, toolCallId: call.id, name: call.name, args: call.args });
  scope.run.emit({
    type: 'tool_execution_end',
    ...turnScope,
    toolCallId: call.id,
    name: call.name,
    result: result.result,
    isError: true,
    executed: false,
    replayed: false,
    durationMs: 0,
  });
}
