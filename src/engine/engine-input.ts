import type { Message } from '../contracts/messages.js';
import { ConfigError, type ConfigIssue } from '../errors.js';
import { MessagesSchema } from './engine-state.js';
import type { EngineInput } from './types.js';

/**
 * The transcript a stream starts from: the given `messages` (or the engine's conversation so far),
 * the system prompt in front when there is none, and `prompt` as a new user message.
 * Throws ConfigError naming every bad field, or when there is nothing for the model to answer
 * (no prompt and a conversation that does not end with a user or tool message).
 */
export function startingTranscript(input: EngineInput, conversation: readonly Message[], system: string | undefined): readonly Message[] {
  const issues: ConfigIssue[] = [];
  if (typeof input !== 'object' || input === null) throw new ConfigError({ message: 'Invalid engine input', issues: [{ path: '', message: 'must be an object' }] });
  if (input.prompt !== undefined && (typeof input.prompt !== 'string' || input.prompt.trim() === '')) {
    issues.push({ path: 'prompt', message: 'must be a non-empty string' });
  }
  if (input.messages !== undefined) {
    const parsed = MessagesSchema().safeParse(input.messages);
    if (!parsed.success) issues.push(...parsed.error.issues.map((issue) => ({ path: ['messages', ...issue.path].join('.'), message: issue.message })));
  }
  if (input.signal !== undefined && !(input.signal instanceof AbortSignal)) issues.push({ path: 'signal', message: 'must be an AbortSignal' });
  const base = input.messages === undefined ? conversation : Array.isArray(input.messages) ? input.messages : [];
  const last = base.at(-1)?.role;
  if (input.prompt === undefined && last !== 'user' && last !== 'tool') {
    issues.push({ path: 'prompt', message: 'is required: the conversation does not end with a user or tool message, so there is nothing to answer' });
  }
  if (issues.length > 0) throw new ConfigError({ message: 'Invalid engine input', issues });
  const withSystem: readonly Message[] =
    system !== undefined && system !== '' && base[0]?.role !== 'system' ? [{ role: 'system', content: system }, ...base] : base;
  return input.prompt === undefined ? withSystem : [...withSystem, { role: 'user', content: input.prompt, source: 'task' }];
}

/** A short description of what the stream asks, for the task the dualloop engine runs. */
export function describeRequest(transcript: readonly Message[]): string {
  for (let index = transcript.length - 1; index >= 0; index -= 1) {
    const message = transcript[index]!;
    if (message.role === 'user' && message.content.trim() !== '') return message.content;
  }
  return 'continue the conversation';
}
