import type { ToolCall } from '../contracts/messages.js';
import type { ToolResult } from '../contracts/tool.js';
import { DEFAULT_LIMITS, type Limits } from '../contracts/limits.js';
import { boundValue, readErrorMessage } from './bounded-value.js';

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

/**
 * The result of a call that ran. The tool's value is first copied into bounded plain JSON (size,
 * depth, cycles, BigInt, throwing getters: ADR 0113), so nothing downstream pays for its size.
 */
export function executedResult(call: ToolCall, args: unknown, value: unknown, isError: boolean, terminate: boolean, limits: Limits = DEFAULT_LIMITS): ToolResult {
  const result = isError
    ? readErrorMessage(value, limits.toolResultChars)
    : boundValue(value, { maxChars: limits.toolResultChars, maxDepth: limits.toolResultDepth }).value;
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
