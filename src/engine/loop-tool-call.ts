import type { ToolCall } from '../contracts/messages.js';
import { defaultTaskId } from '../contracts/task-id.js';
import type { Tool, ToolResult } from '../contracts/tool.js';
import { executeTool } from '../tools/execute-tool.js';
import { executedResult, refusedResult } from '../tools/tool-results.js';
import { malformedArgumentsResult, unknownToolResult, validateArguments } from '../tools/validate-arguments.js';

/** A `loopEngine` stream is one task, named as the kernel names a workflow's first task. */
const LOOP_TASK_ID = defaultTaskId(0);

export interface LoopToolScope {
  readonly tools: ReadonlyMap<string, Tool>;
  readonly runId: string;
  readonly signal: AbortSignal;
}

/**
 * One tool call of `loopEngine`: the kernel's checks and execution core (same refusals, same
 * timeout, same `terminate`) without its policy gate, hooks, store or events.
 */
export async function runLoopToolCall(call: ToolCall, scope: LoopToolScope): Promise<ToolResult> {
  const tool = scope.tools.get(call.name);
  if (tool === undefined) return unknownToolResult(call, scope.tools);
  if (call.argumentsError !== undefined) return malformedArgumentsResult({ ...call, argumentsError: call.argumentsError });
  const args = validateArguments(tool, call.args);
  if (!args.ok) return refusedResult(call, args.message);
  const outcome = await executeTool(tool, args.value, {
    signal: scope.signal,
    setTimer: (callback, delayMs) => setTimeout(callback, delayMs),
    clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    context: (signal) => ({ signal, toolCallId: call.id, runId: scope.runId, taskId: LOOP_TASK_ID, update: () => undefined }),
  });
  return executedResult(call, args.value, outcome.value, outcome.isError, outcome.terminate && !outcome.isError);
}
