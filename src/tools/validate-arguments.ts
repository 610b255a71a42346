import type { ToolCall } from '../contracts/messages.js';
import type { Tool, ToolResult } from '../contracts/tool.js';
import { refusedResult } from './tool-results.js';

// Pure checks shared by the kernel's tool pipeline (run-tool-call.ts) and `loopEngine`, so that both
// refuse a bad call with the same words.

export type Validated = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string };

/** Parses arguments with the tool's zod schema; the message names every invalid field. */
export function validateArguments(tool: Tool, args: unknown): Validated {
  const parsed = tool.parameters.safeParse(args);
  if (parsed.success) return { ok: true, value: parsed.data };
  const details = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(arguments)'}: ${issue.message}`).join('; ');
  return { ok: false, message: `invalid arguments for "${tool.name}": ${details}` };
}

/** The error result for a call to a tool nobody declared; it lists the tools there are. */
export function unknownToolResult(call: ToolCall, tools: ReadonlyMap<string, Tool>): ToolResult {
  const known = [...tools.keys()].join(', ') || 'none';
  return refusedResult(call, `unknown tool "${call.name}" (available: ${known})`);
}

/** The error result for a call whose raw arguments were not valid JSON. */
export function malformedArgumentsResult(call: ToolCall & { readonly argumentsError: string }): ToolResult {
  return refusedResult(call, `invalid JSON arguments: ${call.argumentsError}`);
}
