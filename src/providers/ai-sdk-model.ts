import type { LanguageModelV3, LanguageModelV4 } from '@ai-sdk/provider';
import type { Model, ModelRequest, ModelResult } from '../contracts/model.js';
import { ConfigError, type ConfigIssue } from '../errors.js';
import { aiSdkFailure, describeProviderError, faultFailure, type ProviderFault } from './ai-sdk-errors.js';
import { toAiSdkPrompt, toAiSdkTools } from './ai-sdk-prompt.js';
import { errorText } from './error-text.js';
import { createAiSdkAssembler, toFinishReason, toUsage, type AiSdkStreamPart } from './ai-sdk-stream.js';
import { costOf, type ModelPricing } from './pricing.js';

export type { AiSdkFailureCode } from './ai-sdk-errors.js';

/**
 * A provider model of the AI SDK specification, version 4 (today's, `@ai-sdk/provider` 4.x) or 3:
 * every `LanguageModelV4` and `LanguageModelV3` is one. Described by the members dualloop uses, so
 * that dualloop's own declarations do not pull in `@ai-sdk/provider`'s (which need
 * `@types/json-schema` under `skipLibCheck: false`): a consumer who never uses the AI SDK needs none
 * of its types. The adapter itself is written against the real interfaces.
 */
export interface AiSdkLanguageModel {
  readonly specificationVersion: 'v4' | 'v3';
  readonly provider: string;
  readonly modelId: string;
  doStream(options: never): PromiseLike<{ readonly stream: unknown }>;
}

// Checked when dualloop compiles: both real interfaces stay assignable to the structural one.
type Fits<Model extends AiSdkLanguageModel> = Model;
type EveryVersionFits = Fits<LanguageModelV4> | Fits<LanguageModelV3>;

export interface AiSdkModelOptions {
  /** USD per million tokens; without it every call costs 0 (there is no built-in table for other vendors). */
  readonly pricing?: ModelPricing;
  /** Retries of a call whose request failed with an error the provider marks retryable (default 2). */
  readonly maxRetries?: number;
  /** Wait before the first retry, doubled for each next one (default 1000 ms). Honours the AbortSignal. */
  readonly retryDelayMs?: number;
}

/**
 * A dualloop `Model` over any AI SDK provider model (`@ai-sdk/anthropic`, `@ai-sdk/google`,
 * `@ai-sdk/openai-compatible`…), through its `doStream`.
 *
 * Contract (docs/providers.md):
 * - Throws only `ConfigError`, only here, for an object that is not a V3/V4 language model or bad options.
 * - `call` never rejects: provider errors, `error` stream parts, a stream without `finish`, an
 *   `error`/`interrupted` finish and a usage that is not non-negative integers all resolve to a
 *   `ModelFailure` with a stable code (`AiSdkFailureCode`).
 * - A request error the provider marks retryable (`isRetryable`) is retried before any output
 *   reached the kernel; nothing is retried once the stream started.
 * - The AbortSignal is passed to `doStream` and also cancels the stream reader.
 */
export function aiSdkModel(languageModel: AiSdkLanguageModel, options: AiSdkModelOptions = {}): Model {
  const issues = optionIssues(languageModel, options);
  if (issues.length > 0) throw new ConfigError({ message: 'Invalid aiSdkModel arguments', issues });
  const settings = { pricing: options.pricing, maxRetries: options.maxRetries ?? 2, retryDelayMs: options.retryDelayMs ?? 1000 };
  return {
    provider: languageModel.provider,
    modelId: languageModel.modelId,
    call: (request) => callModel(languageModel, settings, request).catch((error: unknown) => aiSdkFailure('internal_error', errorText(error))),
  };
}

type Settings = { readonly pricing: ModelPricing | undefined; readonly maxRetries: number; readonly retryDelayMs: number };

async function callModel(model: AiSdkLanguageModel, settings: Settings, request: ModelRequest): Promise<ModelResult> {
  const { signal } = request;
  const callOptions = {
    prompt: toAiSdkPrompt(request.messages),
    ...(request.tools.length > 0 ? { tools: toAiSdkTools(request.tools) } : {}),
    // Structured output where the provider supports it; the kernel checks every answer either way.
    ...(request.responseFormat === undefined ? {} : { responseFormat: { type: 'json', schema: request.responseFormat.schema, name: request.responseFormat.name } }),
    abortSignal: signal,
  };
  let stream: ReadableStream<AiSdkStreamPart> | undefined;
  for (let attempt = 1; stream === undefined; attempt += 1) {
    if (signal.aborted) return aborted();
    try {
      stream = (await model.doStream(callOptions as never)).stream as ReadableStream<AiSdkStreamPart>;
    } catch (error) {
      if (signal.aborted) return aborted();
      const fault: ProviderFault = describeProviderError(error);
      if (!fault.retryable || attempt > settings.maxRetries) return faultFailure(fault, attempt);
      if (!(await sleep(settings.retryDelayMs * 2 ** (attempt - 1), signal))) return aborted();
    }
  }
  return readStream(stream, settings, request);
}

async function readStream(stream: ReadableStream<AiSdkStreamPart>, settings: Settings, request: ModelRequest): Promise<ModelResult> {
  const { signal } = request;
  const assembler = createAiSdkAssembler((delta) => request.onTextDelta(delta));
  const reader = stream.getReader();
  const onAbort = () => void reader.cancel(signal.reason).catch(() => undefined);
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      assembler.push(next.value);
    }
  } catch (error) {
    if (signal.aborted) return aborted();
    return faultFailure(describeProviderError(error), 1);
  } finally {
    signal.removeEventListener('abort', onAbort);
    reader.releaseLock();
  }
  if (signal.aborted) return aborted();

  const answer = assembler.finish();
  if (answer.error !== undefined) return faultFailure(describeProviderError(answer.error.value), 1);
  if (answer.finish === undefined) return aiSdkFailure('stream_interrupted', 'the stream ended without a finish part; the answer may be incomplete');
  const counted = toUsage(answer.finish.usage);
  if ('problem' in counted) return aiSdkFailure('invalid_usage', `the provider reported an invalid usage: ${counted.problem}`);
  const { unified, raw } = answer.finish.finishReason;
  const finishReason = toFinishReason(unified, answer.toolCalls.length > 0);
  if (finishReason === undefined) {
    const code = unified === 'interrupted' ? 'stream_interrupted' : 'model_error';
    return { ...aiSdkFailure(code, `the model finished with "${unified}"${raw === undefined ? '' : ` (${raw})`}`), usage: counted.usage };
  }
  const warnings = [...answer.warnings];
  if (finishReason === 'length') warnings.push('the answer was cut by the output token limit (finish reason "length")');
  return {
    type: 'response',
    text: answer.text,
    toolCalls: answer.toolCalls,
    usage: counted.usage,
    costUsd: costOf(counted.usage, settings.pricing),
    finishReason,
    ...(warnings.length > 0 ? { warnings } : {}),
    ...(answer.responseModelId === undefined ? {} : { responseModelId: answer.responseModelId }),
  };
}

function aborted(): ModelResult {
  return aiSdkFailure('aborted', 'the call was aborted');
}

/** Waits, or resolves `false` at once when the signal aborts. */
function sleep(delayMs: number, signal: AbortSignal): Promise<boolean> {
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

function optionIssues(model: unknown, options: AiSdkModelOptions): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const candidate = (typeof model === 'object' && model !== null ? model : {}) as Record<string, unknown>;
  if (candidate['specificationVersion'] !== 'v4' && candidate['specificationVersion'] !== 'v3') {
    issues.push({ path: 'languageModel.specificationVersion', message: `must be "v4" or "v3" (an AI SDK provider language model), got ${JSON.stringify(candidate['specificationVersion'])}` });
  }
  if (typeof candidate['doStream'] !== 'function') issues.push({ path: 'languageModel.doStream', message: 'must be a function' });
  for (const field of ['provider', 'modelId'] as const) {
    if (typeof candidate[field] !== 'string' || candidate[field] === '') issues.push({ path: `languageModel.${field}`, message: 'must be a non-empty string' });
  }
  const { pricing, maxRetries, retryDelayMs } = options ?? {};
  if (pricing !== undefined) {
    for (const field of ['inputPerMillion', 'outputPerMillion'] as const) {
      const value = (pricing as unknown as Record<string, unknown>)?.[field];
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) issues.push({ path: `options.pricing.${field}`, message: 'must be a non-negative number (USD per million tokens)' });
    }
  }
  if (maxRetries !== undefined && !(Number.isInteger(maxRetries) && maxRetries >= 0)) issues.push({ path: 'options.maxRetries', message: 'must be a non-negative integer' });
  if (retryDelayMs !== undefined && !(Number.isInteger(retryDelayMs) && retryDelayMs >= 0)) issues.push({ path: 'options.retryDelayMs', message: 'must be a non-negative integer (milliseconds)' });
  return issues;
}
