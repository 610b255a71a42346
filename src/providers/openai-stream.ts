import type { ToolCall } from '../contracts/messages.js';
import type { FinishReason } from '../contracts/model.js';
import type { Usage } from '../contracts/usage.js';

/*
 * Assembles a Chat Completions stream into one answer. Pure and synchronous: it sees parsed
 * chunks, never the network, so it is tested on its own and the SDK stays in `openai-model.ts`.
 */

/** The parts of a `chat.completion.chunk` this assembler reads; everything else is ignored. */
export interface WireChunk {
  readonly choices?: readonly WireChoice[] | null;
  readonly usage?: { readonly prompt_tokens?: number | null; readonly completion_tokens?: number | null } | null;
}

interface WireChoice {
  readonly index?: number;
  readonly delta?: {
    readonly content?: string | null;
    readonly refusal?: string | null;
    readonly tool_calls?: readonly WireToolCallDelta[] | null;
  } | null;
  readonly finish_reason?: string | null;
}

interface WireToolCallDelta {
  readonly index?: number;
  readonly id?: string | null;
  readonly function?: { readonly name?: string | null; readonly arguments?: unknown } | null;
}

/** What the stream said, before it is turned into a `ModelResponse`. */
export interface AssembledStream {
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  /** `undefined` when no chunk carried a finish reason: the stream did not complete. */
  readonly finishReason: FinishReason | undefined;
  /** `undefined` when no chunk carried usage (the server ignores `stream_options.include_usage`). */
  readonly usage: Usage | undefined;
  readonly warnings: readonly string[];
}

export interface StreamAssembler {
  /** Folds one chunk in; returns the text it added (possibly empty), to be streamed on at once. */
  push(chunk: WireChunk): string;
  finish(): AssembledStream;
}

/** Longest tool name assembled from fragments; longer names are unknown tools anyway. */
const MAX_NAME = 1_024;

interface PendingToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * @param callIndex the request's `callIndex`, used to give a deterministic id to tool calls that a
 * server sent without one (some local servers do), unique within a run.
 */
export function createStreamAssembler(callIndex: number): StreamAssembler {
  let text = '';
  let refusal = '';
  let rawFinishReason: string | undefined;
  let usage: Usage | undefined;
  const pending = new Map<number, PendingToolCall>();
  let lastKey: number | undefined;
  // One past the highest key in use, kept as keys arrive: finding a free slot is O(1), so a stream
  // of n deltas without `index` is assembled in O(n) (ADR 0114), never by scanning every slot.
  let freeKey = 0;

  function nextFreeKey(): number {
    return freeKey;
  }

  function slotFor(delta: WireToolCallDelta): PendingToolCall {
    // Calls are keyed by `index`; a server that omits it gets a new slot per new id, else the last one.
    const opensNewCall = lastKey === undefined || (Boolean(delta.id) && delta.id !== pending.get(lastKey)?.id);
    const key = typeof delta.index === 'number' ? delta.index : opensNewCall ? nextFreeKey() : (lastKey as number);
    lastKey = key;
    let slot = pending.get(key);
    if (slot === undefined) {
      slot = { id: '', name: '', arguments: '' };
      pending.set(key, slot);
      if (key >= freeKey) freeKey = key + 1;
    }
    return slot;
  }

  function foldToolCall(delta: WireToolCallDelta): void {
    const slot = slotFor(delta);
    if (delta.id && slot.id === '') slot.id = delta.id;
    const name = delta.function?.name;
    // Some servers repeat the whole name in every chunk; others could split it. Handle both.
    // A name is short (OpenAI allows 64 characters); past MAX_NAME a hostile stream adds nothing more.
    if (name && name !== slot.name && slot.name.length < MAX_NAME) slot.name = slot.name === '' ? name : slot.name + name;
    const fragment = delta.function?.arguments;
    if (typeof fragment === 'string') slot.arguments += fragment;
    else if (fragment !== undefined && fragment !== null) slot.arguments += JSON.stringify(fragment);
  }

  return {
    push(chunk) {
      // Usage is passed on as sent (the kernel validates it, ADR 0112); a usage without both counts is no usage.
      const input = chunk.usage?.prompt_tokens;
      const output = chunk.usage?.completion_tokens;
      if (input !== undefined && input !== null && output !== undefined && output !== null) usage = { inputTokens: input, outputTokens: output };
      let added = '';
      for (const choice of chunk.choices ?? []) {
        if ((choice.index ?? 0) !== 0) continue; // we never ask for n > 1
        const delta = choice.delta;
        if (delta?.content) added += delta.content;
        if (delta?.refusal) {
          refusal += delta.refusal;
          added += delta.refusal;
        }
        for (const toolCall of delta?.tool_calls ?? []) foldToolCall(toolCall);
        if (choice.finish_reason) rawFinishReason = choice.finish_reason;
      }
      text += added;
      return added;
    },

    finish() {
      const warnings: string[] = [];
      const toolCalls = [...pending.values()].map((slot, position) => finishToolCall(slot, `call_${callIndex}_${position}`));
      const finishReason = mapFinishReason(rawFinishReason, toolCalls.length > 0, warnings);
      if (finishReason === 'length') {
        warnings.push(
          toolCalls.length === 0
            ? 'the model reached its output token limit (finish_reason "length"); the answer is truncated'
            : 'the model reached its output token limit (finish_reason "length") while writing tool calls; their arguments may be cut off',
        );
      }
      if (refusal !== '') warnings.push(`the model refused: ${refusal}`);
      return { text, toolCalls, finishReason, usage, warnings };
    },
  };
}

function finishToolCall(slot: PendingToolCall, fallbackId: string): ToolCall {
  const id = slot.id || fallbackId;
  const raw = slot.arguments;
  if (raw.trim() === '') return { id, name: slot.name, args: {} };
  try {
    return { id, name: slot.name, args: JSON.parse(raw) as unknown };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      id,
      name: slot.name,
      args: undefined,
      argumentsError: `the arguments are not valid JSON (${reason}); received: ${truncate(raw, 200)}`,
    };
  }
}

/**
 * Maps the wire finish reason. `function_call` is the legacy name of `tool_calls`; a server that says
 * `stop` while returning tool calls (some local servers do) is reported as `tool_calls`; any other
 * unknown reason is kept as `stop`/`tool_calls` with a warning naming it.
 */
function mapFinishReason(raw: string | undefined, hasToolCalls: boolean, warnings: string[]): FinishReason | undefined {
  switch (raw) {
    case undefined:
      return undefined;
    case 'length':
    case 'content_filter':
    case 'tool_calls':
      return raw;
    case 'function_call':
      return 'tool_calls';
    case 'stop':
      return hasToolCalls ? 'tool_calls' : 'stop';
    default:
      warnings.push(`unknown finish_reason "${raw}" treated as ${hasToolCalls ? '"tool_calls"' : '"stop"'}`);
      return hasToolCalls ? 'tool_calls' : 'stop';
  }
}

function truncate(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, max)}… (${value.length} characters)`;
}
