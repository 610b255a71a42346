import type { Model, ModelRequest, ModelResult } from '../contracts/model.js';
import type { OpenAICaller } from './openai-call.js';
import { failure, missingKeyFailure } from './openai-errors.js';
import { resolveOptions, type OpenAIModelOptions } from './openai-options.js';
import { resolvePricing } from './pricing.js';

export type { OpenAIModelOptions } from './openai-options.js';
export type { OpenAIFailureCode } from './openai-errors.js';
export { PRICING_AS_OF, type ModelPricing } from './pricing.js';

/**
 * A `Model` for OpenAI and any server that speaks Chat Completions with SSE streaming
 * (Azure OpenAI v1, vLLM, Ollama, LM Studio, llama.cpp server, OpenRouter…).
 *
 * Contract (docs/providers.md has the tables):
 * - Throws only `ConfigError`, only here, for invalid options. A missing key does not throw.
 * - `call` never rejects. Every failure resolves to `{ type: 'failure', code, message }`; the
 *   message never contains the API key or a fragment of it.
 * - Stateless between calls: one instance may serve concurrent runs.
 * - Reads `OPENAI_API_KEY`, `OPENAI_BASE_URL` and `OPENAI_LOG` once, now.
 * - Loads the `openai` SDK on the first call, not before (ADR 0122): importing dualloop stays light.
 */
export function openaiModel(options: OpenAIModelOptions): Model {
  const resolved = resolveOptions(options, process.env);
  const pricing = resolvePricing(resolved.model, resolved.pricing);
  // Without a credential and without a custom base URL every call is `auth_failed`: no SDK needed.
  const hasClient = !(resolved.apiKey === undefined && resolved.keySource === 'none' && !resolved.customBaseURL);
  const sdkLogging = Boolean(process.env['OPENAI_LOG']);
  let caller: Promise<OpenAICaller | ModelResult> | undefined;
  const call = async (request: ModelRequest): Promise<ModelResult> => {
    caller ??= import('./openai-call.js')
      .then((module) => module.createOpenAICaller(resolved, pricing, sdkLogging))
      .catch((error: unknown) => failure('internal_error', `could not load the openai package: ${error instanceof Error ? error.message : String(error)}`, resolved.secrets));
    const loaded = await caller;
    return typeof loaded === 'function' ? loaded(request) : loaded;
  };
  return {
    provider: 'openai',
    modelId: resolved.model,
    // Every header value counts as a secret (x-custom-auth, api-key…): the kernel redacts them all.
    secrets: [...(resolved.apiKey === undefined ? [] : [resolved.apiKey]), ...Object.values(resolved.headers)],
    call: hasClient ? call : () => Promise.resolve(missingKeyFailure(resolved.keyEnv)),
    ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
    ...(resolved.maxOutputTokens === undefined ? {} : { maxOutputTokens: resolved.maxOutputTokens }),
  };
}
