/**
 * What a model is told about a typed task's output, on every call of the task (the wrap-up call
 * included): a line in the system message with the schema, and `ModelRequest.responseFormat` for
 * adapters that can ask their provider for structured output. Both are built from the stored
 * schema alone, so a resume or a fork asks exactly as the first run did (ADR/0422).
 */
import type { Message } from '../contracts/messages.js';
import type { ResponseFormat } from '../contracts/model.js';
import type { JsonSchema } from '../contracts/turn-protocol.js';

const instructions = new WeakMap<JsonSchema, string>();

/** The system-message line for a schema (built once per schema object). */
export function outputInstruction(schema: JsonSchema): string {
  let line = instructions.get(schema);
  if (line === undefined) {
    line = `Your final answer (the reply in which you call no tool) must be only a JSON value matching this JSON Schema, with no other text: ${JSON.stringify(schema)}`;
    instructions.set(schema, line);
  }
  return line;
}

/**
 * The messages a typed task's call sends: the instruction appended to the leading system message,
 * or a system message of its own in front when there is none. Never stored in the transcript.
 */
export function withOutputInstruction(messages: readonly Message[], schema: JsonSchema): readonly Message[] {
  const line = outputInstruction(schema);
  const [first, ...rest] = messages;
  if (first?.role === 'system') return [{ role: 'system', content: first.content === '' ? line : `${first.content}\n\n${line}` }, ...rest];
  return [{ role: 'system', content: line }, ...messages];
}

/** The response format of a task's calls: its schema, named after the task (`[A-Za-z0-9_-]`, at most 64 characters). */
export function responseFormatFor(taskId: string, schema: JsonSchema): ResponseFormat {
  const name = taskId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  return { type: 'json', schema, name: name === '' ? 'output' : name };
}
