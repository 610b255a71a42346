import type { Limits } from '../contracts/limits.js';
import type { ToolCall } from '../contracts/messages.js';
import type { ModelResponse, ModelResult } from '../contracts/model.js';
import { usageProblem } from '../contracts/usage.js';
import { nestingDepth } from '../tools/bounded-value.js';

/**
 * A model's answer as the kernel may count it. Whatever the provider (OpenAI wire, AI SDK, a custom
 * `Model`), the usage and cost it reports are validated before any budget sees them: bad values end
 * the call as the model failure `invalid_usage`, never as a budget silently switched off (ADR 0112).
 */
export function checkedModelResult(result: ModelResult, limits: Limits): ModelResult {
  const shape = (result as { type?: unknown } | null | undefined)?.type;
  if (shape !== 'response' && shape !== 'failure') {
    return { type: 'failure', code: 'invalid_response', message: 'the model answered something that is neither a response nor a failure' };
  }
  if (result.type === 'failure') {
    if (result.usage === undefined || usageProblem(result.usage) === undefined) return result;
    return { type: 'failure', code: 'invalid_usage', message: `the model reported invalid usage with its failure (${result.code}): ${usageProblem(result.usage)}` };
  }
  if (!Array.isArray(result.toolCalls) || typeof result.text !== 'string') {
    return { type: 'failure', code: 'invalid_response', message: 'the model answered a response without a text string and a toolCalls array' };
  }
  const problem = usageProblem(result.usage, result.costUsd);
  if (problem !== undefined) return { type: 'failure', code: 'invalid_usage', message: `the model reported invalid usage: ${problem}` };
  return withBoundedArguments(result, limits.toolArgumentsDepth);
}

/**
 * Arguments nested deeper than the limit never enter the run (recursive code downstream would
 * overflow the stack): the call keeps its id and name and becomes an error tool result (ADR 0113).
 */
function withBoundedArguments(result: ModelResponse, maxDepth: number): ModelResponse {
  if (!result.toolCalls.some((call) => nestingDepth(call.args, maxDepth) > maxDepth)) return result;
  const toolCalls = result.toolCalls.map((call): ToolCall =>
    nestingDepth(call.args, maxDepth) > maxDepth
      ? { id: call.id, name: call.name, args: undefined, argumentsError: `the arguments are nested deeper than ${maxDepth} levels (option limits.toolArgumentsDepth)` }
      : call,
  );
  return { ...result, toolCalls };
}
