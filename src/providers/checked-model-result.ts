import type { Limits } from '../contracts/limits.js';
import type { ToolCall } from '../contracts/messages.js';
import type { ModelResponse, ModelResult } from '../contracts/model.js';
import { usageProblem } from '../contracts/usage.js';
import { boundValue, nestingDepth } from '../tools/bounded-value.js';
import { plainModelResult } from './plain-model-result.js';

/**
 * A model's answer as the kernel may count and keep it. Whatever the provider (OpenAI wire, AI
 * SDK, a custom `Model`), the usage and cost it reports are validated before any budget sees them:
 * bad values end the call as the model failure `invalid_usage`, never as a budget silently switched
 * off (ADR 0112). Its text and tool-call arguments are bounded here, before any event, transcript
 * or store holds them (ADR 0113, ADR 0104).
 */
export function checkedModelResult(answer: ModelResult, limits: Limits): ModelResult {
  // Read once into plain data first: getters and Proxies of a custom Model cannot throw or change it later.
  const result = plainModelResult(answer);
  if (result.type === 'failure') {
    if (result.usage === undefined || usageProblem(result.usage) === undefined) return result;
    return { type: 'failure', code: 'invalid_usage', message: `the model reported invalid usage with its failure (${result.code}): ${usageProblem(result.usage)}` };
  }
  // A response must say what it cost (0 when free or unknown): a missing cost would make every cost budget NaN.
  const problem = result.costUsd === undefined ? 'costUsd is missing, not a non-negative finite number' : usageProblem(result.usage, result.costUsd);
  if (problem !== undefined) return { type: 'failure', code: 'invalid_usage', message: `the model reported invalid usage: ${problem}` };
  return withBoundedText(withBoundedArguments(result, limits), limits.modelTextChars);
}

/** How much of over-long arguments is kept (in events, the transcript, stores) to show what they were. */
export const ARGUMENTS_PREVIEW_CHARS = 1_024;

/** The marker that ends the text of a model call cut at `limits.modelTextChars`; the model sees it on its next call. */
export function textTruncationMarker(length: number, maxChars: number): string {
  return `… [truncated: the model's text is ${length} characters, the limit is ${maxChars} (option limits.modelTextChars)]`;
}

/** Text longer than the limit is cut with a marker, and a warning says so; the call goes on. */
function withBoundedText(result: ModelResponse, maxChars: number): ModelResponse {
  if (result.text.length <= maxChars) return result;
  const warning = `the model's text was cut at ${maxChars} of its ${result.text.length} characters (option limits.modelTextChars)`;
  return { ...result, text: result.text.slice(0, maxChars) + textTruncationMarker(result.text.length, maxChars), warnings: [...(result.warnings ?? []), warning] };
}

/**
 * Arguments nested deeper than the limit never enter the run (recursive code downstream would
 * overflow the stack), and arguments longer than the limit never reach the tool: the call keeps
 * its id and name and becomes an error tool result (ADR 0113, ADR 0104). Over-long arguments are
 * kept as the start of their JSON with a marker, so the run shows what came without storing it all.
 */
function withBoundedArguments(result: ModelResponse, limits: Limits): ModelResponse {
  let changed = false;
  const toolCalls = result.toolCalls.map((call): ToolCall => {
    const bounded = boundedCall(call, limits);
    if (bounded !== call) changed = true;
    return bounded;
  });
  return changed ? { ...result, toolCalls } : result;
}

function boundedCall(call: ToolCall, limits: Limits): ToolCall {
  if (call.argumentsError !== undefined) return call;
  const maxDepth = limits.toolArgumentsDepth;
  if (nestingDepth(call.args, maxDepth) > maxDepth) {
    return { id: call.id, name: call.name, args: undefined, argumentsError: `the arguments are nested deeper than ${maxDepth} levels (option limits.toolArgumentsDepth)` };
  }
  const maxChars = limits.toolArgumentsChars;
  // Linear in the limit, never in the arguments: the copy stops once the budget is spent.
  const measured = boundValue(call.args, { maxChars, maxDepth: maxDepth + 1 });
  // Within the limits, the plain JSON copy is what the run keeps: a BigInt, a function or a getter of a custom Model's arguments cannot reach a store.
  if (!measured.truncated) return typeof call.args === 'object' || typeof call.args === 'bigint' ? { ...call, args: measured.value } : call;
  const size = typeof call.args === 'string' ? `${call.args.length} characters` : `more than ${maxChars} characters`;
  const text = typeof call.args === 'string' ? call.args : String(measured.value);
  return {
    id: call.id,
    name: call.name,
    args: `${text.slice(0, Math.min(maxChars, ARGUMENTS_PREVIEW_CHARS))}… [truncated: the arguments are ${size}, the limit is ${maxChars} (option limits.toolArgumentsChars)]`,
    argumentsError: `the arguments are ${size}, the limit is ${maxChars} (option limits.toolArgumentsChars)`,
  };
}
