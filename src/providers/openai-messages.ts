import type { Message, ToolCall } from '../contracts/messages.js';
import type { ToolDescriptor } from '../contracts/model.js';

/*
 * Chat Completions request shapes, declared here (structurally identical to the SDK's)
 * so that only `openai-model.ts` imports the `openai` package.
 */

export interface WireToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

export type WireMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly content: string | null; readonly tool_calls?: WireToolCall[] }
  | { readonly role: 'tool'; readonly tool_call_id: string; readonly content: string };

export interface WireTool {
  readonly type: 'function';
  readonly function: { readonly name: string; readonly description: string; readonly parameters: Record<string, unknown> };
}

/** Translates the kernel transcript into Chat Completions messages, one for one, in order. */
export function toWireMessages(messages: readonly Message[]): WireMessage[] {
  return messages.map(toWireMessage);
}

function toWireMessage(message: Message): WireMessage {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: message.content };
    case 'assistant': {
      const toolCalls = message.toolCalls ?? [];
      if (toolCalls.length === 0) return { role: 'assistant', content: message.content };
      // OpenAI allows null content beside tool calls; an empty string confuses some chat templates.
      return {
        role: 'assistant',
        content: message.content === '' ? null : message.content,
        tool_calls: toolCalls.map(toWireToolCall),
      };
    }
    case 'tool':
      // Chat Completions has no error flag on tool results: the kernel already wrote the error into `content`.
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

/**
 * Arguments travel as a JSON string. A call whose arguments could not be parsed has `args: undefined`
 * (its raw text is not kept in the transcript); it is replayed as `{}` so the history stays valid JSON
 * for servers whose chat templates parse it.
 */
function toWireToolCall(call: ToolCall): WireToolCall {
  return {
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
  };
}

/**
 * Tool descriptors as function tools. The top-level `$schema` that `z.toJSONSchema` adds is dropped:
 * OpenAI ignores it, and several compatible servers reject unknown schema keywords at the root.
 */
export function toWireTools(tools: readonly ToolDescriptor[]): WireTool[] {
  return tools.map((tool) => {
    const { $schema: _ignored, ...parameters } = tool.parameters;
    return { type: 'function', function: { name: tool.name, description: tool.description, parameters } };
  });
}
