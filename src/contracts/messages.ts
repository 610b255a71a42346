/** The transcript format the kernel keeps and every model adapter translates from. */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

export interface SystemMessage {
  readonly role: 'system';
  readonly content: string;
}

/**
 * Where a user message came from: the task itself, a steer, a follow-up, the wrap-up request, or
 * `output_repair`: a typed task's answer that did not match its `output` schema, sent back with the issues.
 */
export type UserMessageSource = 'task' | 'steering' | 'follow_up' | 'wrap_up' | 'ephemeral' | 'output_repair';

export interface UserMessage {
  readonly role: 'user';
  readonly content: string;
  readonly source?: UserMessageSource;
}

export interface AssistantMessage {
  readonly role: 'assistant';
  readonly content: string;
  readonly toolCalls?: readonly ToolCall[];
}

export interface ToolMessage {
  readonly role: 'tool';
  readonly toolCallId: string;
  readonly name: string;
  readonly content: string;
  readonly isError: boolean;
}

/** One tool call requested by the model. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  /**
   * Parsed arguments. When `argumentsError` is set: `undefined`, or for arguments longer than
   * `limits.toolArgumentsChars` the start of their JSON ending with a `… [truncated: …]` marker.
   */
  readonly args: unknown;
  /**
   * Set when the arguments are unusable: not valid JSON (a model adapter), nested too deep or too
   * long (the kernel's limits). The tool does not run; the call gets an error result.
   */
  readonly argumentsError?: string;
}
