import type { LanguageModelV3StreamPart, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import type { ToolCall } from '../contracts/messages.js';
import type { FinishReason } from '../contracts/model.js';
import type { Usage } from '../contracts/usage.js';

/** A stream part of either specification version (the parts dualloop reads have the same shape). */
export type AiSdkStreamPart = LanguageModelV4StreamPart | LanguageModelV3StreamPart;
type FinishPart = Extract<AiSdkStreamPart, { type: 'finish' }>;

/** What a finished stream adds up to, before it is judged (finish reason, usage). */
export interface AssembledStream {
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  readonly finish: FinishPart | undefined;
  /** The first `error` part, if any. */
  readonly error: { readonly value: unknown } | undefined;
  readonly responseModelId: string | undefined;
  readonly warnings: readonly string[];
}

interface PendingCall {
  readonly id: string;
  name: string;
  input: string;
  /** Set once a `tool-call` part gave the complete call (authoritative over the deltas). */
  complete: boolean;
  providerExecuted: boolean;
}

/**
 * Folds provider stream parts into one answer, linearly: text deltas are forwarded as they come,
 * tool calls are taken from `tool-call` parts (or, when a provider sends only `tool-input-*`
 * parts, from their deltas), in the order they started. Calls the provider executed itself are
 * not dualloop's to run and are left out.
 */
export function createAiSdkAssembler(onTextDelta: (delta: string) => void) {
  const textParts: string[] = [];
  const calls = new Map<string, PendingCall>();
  const warnings: string[] = [];
  let finish: FinishPart | undefined;
  let error: { value: unknown } | undefined;
  let responseModelId: string | undefined;

  const pending = (id: string, name: string): PendingCall => {
    let call = calls.get(id);
    if (call === undefined) {
      call = { id, name, input: '', complete: false, providerExecuted: false };
      calls.set(id, call);
    }
    return call;
  };

  return {
    push(part: AiSdkStreamPart): void {
      switch (part.type) {
        case 'text-delta':
          if (part.delta === '') return;
          textParts.push(part.delta);
          onTextDelta(part.delta);
          return;
        case 'tool-input-start': {
          const call = pending(part.id, part.toolName);
          call.providerExecuted = part.providerExecuted === true;
          return;
        }
        case 'tool-input-delta': {
          const call = calls.get(part.id);
          if (call !== undefined && !call.complete) call.input += part.delta;
          return;
        }
        case 'tool-call': {
          const call = pending(part.toolCallId, part.toolName);
          call.name = part.toolName;
          call.input = part.input;
          call.complete = true;
          call.providerExecuted = part.providerExecuted === true;
          return;
        }
        case 'stream-start':
          for (const warning of part.warnings) warnings.push(describeWarning(warning));
          return;
        case 'response-metadata':
          if (typeof part.modelId === 'string') responseModelId = part.modelId;
          return;
        case 'finish':
          finish = part;
          return;
        case 'error':
          error ??= { value: part.error };
          return;
        default:
          return;
      }
    },
    finish(): AssembledStream {
      const toolCalls = [...calls.values()].filter((call) => !call.providerExecuted).map(toToolCall);
      return { text: textParts.join(''), toolCalls, finish, error, responseModelId, warnings };
    },
  };
}

/** Arguments arrive as JSON text; an empty text means no arguments. Unparsable text is kept as an error for the tool result. */
function toToolCall(call: PendingCall): ToolCall {
  const text = call.input.trim();
  if (text === '') return { id: call.id, name: call.name, args: {} };
  try {
    return { id: call.id, name: call.name, args: JSON.parse(text) as unknown };
  } catch (error) {
    return { id: call.id, name: call.name, args: undefined, argumentsError: `the arguments are not valid JSON (${error instanceof Error ? error.message : String(error)})` };
  }
}

function describeWarning(warning: unknown): string {
  if (typeof warning !== 'object' || warning === null) return `provider warning: ${String(warning)}`;
  const { type, feature, message, details } = warning as Record<string, unknown>;
  const text = [feature, message, details].filter((piece) => typeof piece === 'string' && piece !== '').join(': ');
  return `provider warning (${String(type)})${text === '' ? '' : `: ${text}`}`;
}

/** Finish reasons dualloop knows; `undefined` for the unified reasons that are failures (`error`, `interrupted`). */
export function toFinishReason(unified: string, hasToolCalls: boolean): FinishReason | undefined {
  switch (unified) {
    case 'tool-calls':
      return 'tool_calls';
    case 'length':
      return 'length';
    case 'content-filter':
      return 'content_filter';
    case 'stop':
    case 'other':
      // Some providers report `stop` beside tool calls; the calls decide.
      return hasToolCalls ? 'tool_calls' : 'stop';
    default:
      return undefined;
  }
}

/** The totals of a provider usage, or why they cannot be trusted (negative, fractional, not finite). */
export function toUsage(usage: FinishPart['usage'] | undefined): { readonly usage: Usage } | { readonly problem: string } {
  const input = usage?.inputTokens;
  const output = usage?.outputTokens;
  const inputTokens = input?.total ?? sumDefined(input?.noCache, input?.cacheRead, input?.cacheWrite);
  const outputTokens = output?.total ?? sumDefined(output?.text, output?.reasoning);
  const problems = [checkCount('inputTokens', inputTokens), checkCount('outputTokens', outputTokens)].filter((problem) => problem !== undefined);
  if (problems.length > 0) return { problem: problems.join('; ') };
  return { usage: { inputTokens, outputTokens } };
}

function sumDefined(...values: readonly (number | undefined)[]): number {
  return values.reduce<number>((total, value) => total + (value ?? 0), 0);
}

function checkCount(name: string, value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return undefined;
  return `${name} must be a non-negative integer, got ${typeof value === 'number' ? String(value) : typeof value}`;
}
