import type { ToolCall } from '../contracts/messages.js';
import type { ToolResult } from '../contracts/tool.js';

/** The text the model sees for a value: strings as they are, everything else as JSON. */
export function toContent(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return 'null';
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return String(value);
  }
}

/** An error result for a call that did not run (or failed); the model sees `message`. */
export function refusedResult(call: ToolCall, message: string, options: { usedSlot?: boolean; policy?: ToolResult['policy'] } = {}): ToolResult {
  return {
    toolCallId: call.id,
    name: call.name,
    args: call.args,
    result: message,
    content: `Error: ${message}`,
    isError: true,
    terminate: false,
    executed: false,
    usedSlot: options.usedSlot ?? true,
    ...(options.policy === undefined ? {} : { policy: options.policy }),
  };
}

export function executedResult(call: ToolCall, args: unknown, value: unknown, isError: boolean, terminate: boolean): ToolResult {
  const result = isError ? toErrorMessage(value) : value;
  return {
    toolCallId: call.id,
    name: call.name,
    args,
    result,
    content: isError ? `Error: ${result as string}` : toContent(result),
    isError,
    terminate,
    executed: true,
    usedSlot: true,
  };
}

function toErrorMessage(value: unknown): string {
  if (value instanceof Error) return value.message || value.name;
  return typeof value === 'string' ? value : toContent(value);
}
