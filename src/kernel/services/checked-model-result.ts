import type { ModelResult } from '../../contracts/model.js';
import { usageProblem } from '../../contracts/usage.js';

/**
 * A model's answer as the kernel may count it. Whatever the provider (OpenAI wire, AI SDK, a custom
 * `Model`), the usage and cost it reports are validated before any budget sees them: bad values end
 * the call as the model failure `invalid_usage`, never as a budget silently switched off (ADR 0112).
 */
export function checkedModelResult(result: ModelResult): ModelResult {
  const shape = (result as { type?: unknown } | null | undefined)?.type;
  if (shape !== 'response' && shape !== 'failure') {
    return { type: 'failure', code: 'invalid_response', message: 'the model answered something that is neither a response nor a failure' };
  }
  if (result.type === 'failure') {
    if (result.usage === undefined || usageProblem(result.usage) === undefined) return result;
    return { type: 'failure', code: 'invalid_usage', message: `the model reported invalid usage with its failure (${result.code}): ${usageProblem(result.usage)}` };
  }
  const problem = usageProblem(result.usage, result.costUsd);
  return problem === undefined ? result : { type: 'failure', code: 'invalid_usage', message: `the model reported invalid usage: ${problem}` };
}
