import { describeThrown } from '../contracts/describe-error.js';
import type { ToolCall } from '../contracts/messages.js';
import type { FinishReason, ModelResult } from '../contracts/model.js';
import type { Usage } from '../contracts/usage.js';

/*
 * A model's answer is foreign data: a custom `Model` may hand back getters or Proxy traps that
 * throw, a getter that answers differently on each read, ids that are not strings, a finish reason
 * no checkpoint can be read back with (ADR 0300). Before anything counts or keeps it, each field
 * is read exactly once, under try/catch, into a plain object of the documented shape; what does
 * not fit is the model failure `invalid_response` naming the field — never a throw out of the
 * model caller (an unhandled rejection that leaves the task running for ever), never a value that
 * passes a check and then changes.
 */

const FINISH_REASONS: ReadonlySet<string> = new Set<FinishReason>(['stop', 'tool_calls', 'length', 'content_filter']);

class ShapeProblem extends Error {}

/** `raw` as a plain `ModelResult` (usage and cost still to be validated), or an `invalid_response` failure. Never throws. */
export function plainModelResult(raw: unknown): ModelResult {
  try {
    return copyResult(raw);
  } catch (error) {
    const why = error instanceof ShapeProblem ? error.message : `it could not be read (${describeThrown(error)})`;
    return { type: 'failure', code: 'invalid_response', message: `the model answered an invalid result: ${why}` };
  }
}

function copyResult(raw: unknown): ModelResult {
  if (typeof raw !== 'object' || raw === null) throw new ShapeProblem('it is neither a response nor a failure');
  const source = raw as Record<string, unknown>;
  const type = source['type'];
  if (type === 'failure') {
    const code = source['code'];
    const message = source['message'];
    if (typeof code !== 'string' || code === '') throw new ShapeProblem('a failure needs a code string');
    if (typeof message !== 'string') throw new ShapeProblem('a failure needs a message string');
    const usage = source['usage'];
    return { type: 'failure', code, message, ...(usage === undefined ? {} : { usage: plainUsage(usage) as Usage }) };
  }
  if (type !== 'response') throw new ShapeProblem('it is neither a response nor a failure');
  const text = source['text'];
  if (typeof text !== 'string') throw new ShapeProblem('a response needs a text string');
  const toolCalls = plainToolCalls(source['toolCalls']);
  const usage = plainUsage(source['usage']);
  // Checked by usageProblem next: a wrong type there is `invalid_usage`, as documented.
  const costUsd = source['costUsd'];
  const finishReason = source['finishReason'];
  if (typeof finishReason !== 'string' || !FINISH_REASONS.has(finishReason)) {
    throw new ShapeProblem(`finishReason ${describeValue(finishReason)} is not one of ${[...FINISH_REASONS].join(', ')}`);
  }
  const warnings = plainWarnings(source['warnings']);
  const responseModelId = source['responseModelId'];
  if (responseModelId !== undefined && typeof responseModelId !== 'string') throw new ShapeProblem('responseModelId must be a string');
  return {
    type: 'response',
    text,
    toolCalls,
    usage: usage as Usage,
    costUsd: costUsd as number,
    finishReason: finishReason as FinishReason,
    ...(warnings === undefined ? {} : { warnings }),
    ...(responseModelId === undefined ? {} : { responseModelId }),
  };
}

/** A plain copy of an object usage (each count read once); anything else as it is, for usageProblem to name. */
function plainUsage(usage: unknown): unknown {
  if (typeof usage !== 'object' || usage === null) return usage;
  const source = usage as Record<string, unknown>;
  return { inputTokens: source['inputTokens'], outputTokens: source['outputTokens'] };
}

function plainToolCalls(value: unknown): ToolCall[] {
  if (!Array.isArray(value)) throw new ShapeProblem('a response needs a toolCalls array');
  const calls: ToolCall[] = [];
  const ids = new Set<string>();
  const length = value.length;
  for (let index = 0; index < length; index += 1) {
    const call: unknown = value[index];
    if (typeof call !== 'object' || call === null) throw new ShapeProblem(`toolCalls.${index} is not an object`);
    const source = call as Record<string, unknown>;
    const id = source['id'];
    const name = source['name'];
    if (typeof id !== 'string' || id === '') throw new ShapeProblem(`toolCalls.${index}.id must be a non-empty string`);
    if (typeof name !== 'string') throw new ShapeProblem(`toolCalls.${index}.name must be a string`);
    const argumentsError = source['argumentsError'];
    if (argumentsError !== undefined && typeof argumentsError !== 'string') throw new ShapeProblem(`toolCalls.${index}.argumentsError must be a string`);
    // The arguments are copied into plain JSON by the limits check (checked-model-result.ts).
    calls.push({ id: uniqueId(id, index, ids), name, args: source['args'], ...(argumentsError === undefined ? {} : { argumentsError }) });
  }
  return calls;
}

/**
 * Ids pair a call with its result (events, the transcript, the recorded result): a second call of
 * one answer with the same id (a server breaking the protocol) gets `<id>~<position>`.
 */
function uniqueId(id: string, index: number, ids: Set<string>): string {
  let unique = id;
  while (ids.has(unique)) unique = `${unique}~${index}`;
  ids.add(unique);
  return unique;
}

function plainWarnings(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw new ShapeProblem('warnings must be an array of strings');
  const warnings = [...(value as unknown[])];
  if (!warnings.every((warning) => typeof warning === 'string')) throw new ShapeProblem('warnings must be an array of strings');
  return warnings as string[];
}

function describeValue(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value) : typeof value;
}
