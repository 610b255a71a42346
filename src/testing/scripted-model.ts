import type { Message, ToolCall } from '../contracts/messages.js';
import type { FinishReason, Model, ModelRequest, ModelResult, ResponseFormat, ToolDescriptor } from '../contracts/model.js';
import type { Usage } from '../contracts/usage.js';

/** One scripted model answer. */
export interface ScriptStep {
  readonly text?: string;
  readonly toolCalls?: readonly { readonly name: string; readonly args?: unknown; readonly id?: string }[];
  readonly usage?: Usage;
  /** Waits this long before answering; the call's AbortSignal cuts the wait. */
  readonly delayMs?: number;
  /** Makes the call fail with this message (or code and message). */
  readonly error?: string | { readonly code: string; readonly message: string };
  /** Extensions for tests: the call's cost and finish reason. */
  readonly costUsd?: number;
  readonly finishReason?: FinishReason;
  /** Streams the text in these pieces instead of one delta. */
  readonly chunks?: readonly string[];
}

export interface ScriptCall {
  /** The kernel's model-call index for the run (restored on resume), so a script replays identically. */
  readonly index: number;
  readonly messages: readonly Message[];
  /** The task the call is for, and its turn (absent for a planner's calls): a graph's tasks call in any order. */
  readonly taskId?: string;
  readonly turn?: number;
}

export type Script = readonly ScriptStep[] | ((call: ScriptCall) => ScriptStep);

export interface RecordedCall {
  readonly index: number;
  readonly messages: readonly Message[];
  readonly tools: readonly ToolDescriptor[];
  /** The structured output the call asked for (a typed task's calls), as a provider adapter would see it. */
  readonly responseFormat?: ResponseFormat;
}

export interface ScriptedModel extends Model {
  /** Every request, in order. */
  readonly calls: readonly RecordedCall[];
}

/**
 * A real `Model` driven by a script: an array of steps (one per model call, in order) or a
 * function of the call. An exhausted array fails the call with "script exhausted". Tool-call ids
 * default to `call_<index>_<position>`, so replays are deterministic.
 */
export function scriptedModel(script: Script, options: { readonly modelId?: string } = {}): ScriptedModel {
  const calls: RecordedCall[] = [];
  return {
    provider: 'scripted',
    modelId: options.modelId ?? 'scripted',
    calls,
    async call(request: ModelRequest): Promise<ModelResult> {
      const index = request.callIndex;
      calls.push({ index, messages: request.messages, tools: request.tools, ...(request.responseFormat === undefined ? {} : { responseFormat: request.responseFormat }) });
      const step =
        typeof script === 'function'
          ? script({ index, messages: request.messages, ...(request.taskId === undefined ? {} : { taskId: request.taskId }), ...(request.turn === undefined ? {} : { turn: request.turn }) })
          : script[index];
      if (step === undefined) return { type: 'failure', code: 'script_exhausted', message: `script exhausted: no step for model call ${index}` };
      if (step.delayMs !== undefined && step.delayMs > 0) {
        const waited = await wait(step.delayMs, request.signal);
        if (!waited) return { type: 'failure', code: 'aborted', message: 'the call was aborted' };
      }
      if (request.signal.aborted) return { type: 'failure', code: 'aborted', message: 'the call was aborted' };
      if (step.error !== undefined) {
        const error = typeof step.error === 'string' ? { code: 'scripted_error', message: step.error } : step.error;
        return { type: 'failure', ...error };
      }
      const text = step.text ?? '';
      for (const chunk of step.chunks ?? (text === '' ? [] : [text])) request.onTextDelta(chunk);
      const toolCalls: ToolCall[] = (step.toolCalls ?? []).map((call, position) => ({
        id: call.id ?? `call_${index}_${position}`,
        name: call.name,
        args: call.args ?? {},
      }));
      return {
        type: 'response',
        text,
        toolCalls,
        usage: step.usage ?? { inputTokens: 0, outputTokens: 0 },
        costUsd: step.costUsd ?? 0,
        finishReason: step.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
      };
    },
  };
}

function wait(delayMs: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, delayMs);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
