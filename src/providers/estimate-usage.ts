import type { ToolCall } from '../contracts/messages.js';
import type { ModelRequest } from '../contracts/model.js';
import type { Usage } from '../contracts/usage.js';

/** Characters per token of the estimate (English text with GPT tokenizers is about 4). */
export const CHARACTERS_PER_TOKEN = 4;

/**
 * The usage counted for a response whose server sent none (it ignores `stream_options.include_usage`):
 * one token per 4 characters of what was sent (messages and tool schemas) and received (text and
 * tool calls), rounded up. An estimate, said in a warning, never a silent zero (ADR 0112).
 */
export function estimateUsage(request: Pick<ModelRequest, 'messages' | 'tools'>, answer: { readonly text: string; readonly toolCalls: readonly ToolCall[] }): Usage {
  const sent = JSON.stringify(request.messages).length + (request.tools.length === 0 ? 0 : JSON.stringify(request.tools).length);
  const received = answer.text.length + answer.toolCalls.reduce((sum, call) => sum + call.name.length + (JSON.stringify(call.args) ?? '').length, 0);
  return { inputTokens: Math.ceil(sent / CHARACTERS_PER_TOKEN), outputTokens: Math.ceil(received / CHARACTERS_PER_TOKEN) };
}

export function estimatedUsageWarning(usage: Usage): string {
  return `the server sent no usage (stream_options.include_usage unsupported?); this call counts an estimate against budgets: ${usage.inputTokens} input and ${usage.outputTokens} output tokens (${CHARACTERS_PER_TOKEN} characters per token)`;
}
