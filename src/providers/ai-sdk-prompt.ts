import type { LanguageModelV3CallOptions, LanguageModelV4CallOptions } from '@ai-sdk/provider';
import type { Message } from '../contracts/messages.js';
import type { ToolDescriptor } from '../contracts/model.js';

/*
 * The kernel transcript in the AI SDK provider specification's prompt shape. V3 and V4 prompts
 * have the same shape for what dualloop sends (text, tool calls, text tool results), so one
 * translation serves both; the types come from `@ai-sdk/provider` only (no runtime import).
 */

export type AiSdkPrompt = LanguageModelV4CallOptions['prompt'] & LanguageModelV3CallOptions['prompt'];
type PromptMessage = AiSdkPrompt[number];
export type AiSdkFunctionTool = Extract<NonNullable<LanguageModelV4CallOptions['tools']>[number], { type: 'function' }>;

/** One prompt message per transcript message, in order. */
export function toAiSdkPrompt(messages: readonly Message[]): AiSdkPrompt {
  return messages.map(toPromptMessage);
}

function toPromptMessage(message: Message): PromptMessage {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: [{ type: 'text', text: message.content }] };
    case 'assistant': {
      const text = message.content === '' ? [] : [{ type: 'text' as const, text: message.content }];
      // A call whose arguments did not parse is replayed with `{}`, so the history stays valid JSON.
      const calls = (message.toolCalls ?? []).map((call) => ({ type: 'tool-call' as const, toolCallId: call.id, toolName: call.name, input: call.args ?? {} }));
      return { role: 'assistant', content: [...text, ...calls] };
    }
    case 'tool':
      // The kernel already wrote the result (or the error) as text into `content`.
      return {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: message.toolCallId,
            toolName: message.name,
            output: message.isError ? { type: 'error-text', value: message.content } : { type: 'text', value: message.content },
          },
        ],
      };
  }
}

/** Tool descriptors as function tools; the top-level `$schema` is dropped as for `openaiModel`. */
export function toAiSdkTools(tools: readonly ToolDescriptor[]): AiSdkFunctionTool[] {
  return tools.map((tool) => {
    const { $schema: _ignored, ...inputSchema } = tool.parameters;
    return { type: 'function', name: tool.name, description: tool.description, inputSchema: inputSchema as AiSdkFunctionTool['inputSchema'] };
  });
}
