import OpenAI, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from 'openai';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ModelRequest, ModelResult } from '../contracts/model.js';
import {
  abortedFailure,
  failure,
  incompleteStreamFailure,
  timeoutFailure,
  toFailure,
  type FailureContext,
  type WireFault,
} from './openai-errors.js';
import { errorText } from './error-text.js';
import { toWireMessages, toWireTools } from './openai-messages.js';
import { toWireResponseFormat } from './openai-response-format.js';
import { PLACEHOLDER_API_KEY, type ResolvedOptions } from './openai-options.js';
import { estimatedUsageWarning, estimateUsage } from './estimate-usage.js';
import { createStreamAssembler } from './openai-stream.js';
import { costOf, type resolvePricing } from './pricing.js';

/**
 * The only module that imports the `openai` SDK. `openai-model.ts` loads it with a dynamic
 * import on the first call, so `import('dualloop')` does not pay for the SDK (ADR 0122).
 */

/** Calls the model through one SDK client, created once per `openaiModel`. */
export type OpenAICaller = (request: ModelRequest) => Promise<ModelResult>;

export function createOpenAICaller(resolved: ResolvedOptions, pricing: ReturnType<typeof resolvePricing>, sdkLogging: boolean): OpenAICaller {
  const client = createClient(resolved, sdkLogging);
  return (request) => callModel(client, resolved, pricing, request);
}

/**
 * One model call's way to stop the SDK's retries. The SDK retries every connection failure, but a
 * refused connection (nothing listens: ECONNREFUSED) or a port fetch refuses to use ("bad port")
 * fails the same way on every attempt: the call aborts at once and reports it as not retried.
 */
interface CallScope {
  refused: string | undefined;
  readonly stop: AbortController;
}

const callScope = new AsyncLocalStorage<CallScope>();

/** `fetch` as the SDK calls it, inside the call's scope (AsyncLocalStorage follows the awaits). */
async function fetchOrRefuse(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  try {
    return await globalThis.fetch(input, init);
  } catch (error) {
    const scope = callScope.getStore();
    const refusal = refusalOf(error);
    if (scope !== undefined && refusal !== undefined) {
      scope.refused = refusal;
      scope.stop.abort(error);
    }
    throw error;
  }
}

function refusalOf(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  // The address is the base URL the failure names already: said once.
  if (cause?.code === 'ECONNREFUSED') return 'nothing listens there (ECONNREFUSED)';
  if (typeof cause?.message === 'string' && /^bad port$/i.test(cause.message)) return 'bad port: fetch refuses to connect to this port';
  return undefined;
}

function createClient(resolved: ResolvedOptions, sdkLogging: boolean): OpenAI {
  // The SDK requires a bearer key. When the credential is an `api-key` header (Azure) the
  // placeholder bearer is removed, so the server sees only the header it expects.
  const credentialInHeaders = resolved.keySource === 'headers option';
  const hasAuthorizationHeader = Object.keys(resolved.headers).some((name) => name.toLowerCase() === 'authorization');
  return new OpenAI({
    apiKey: resolved.apiKey ?? PLACEHOLDER_API_KEY,
    baseURL: resolved.baseURL,
    // Explicit nulls keep the SDK from reading OPENAI_ORG_ID, OPENAI_PROJECT_ID and OPENAI_ADMIN_KEY:
    // this adapter reads only the variables it documents.
    organization: resolved.organization ?? null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    maxRetries: resolved.maxRetries,
    timeout: resolved.timeoutMs,
    fetch: fetchOrRefuse,
    defaultHeaders: {
      ...resolved.headers,
      ...(credentialInHeaders && !hasAuthorizationHeader ? { Authorization: null } : {}),
    },
    // A library must not write to the console on its own; OPENAI_LOG still turns SDK logging on.
    ...(sdkLogging ? {} : { logLevel: 'off' as const }),
  });
}

async function callModel(
  client: OpenAI,
  resolved: ResolvedOptions,
  pricing: ReturnType<typeof resolvePricing>,
  request: ModelRequest,
): Promise<ModelResult> {
  if (request.signal.aborted) return abortedFailure();
  // One deadline for the whole call (retries and streaming included); the SDK's own timeout only
  // covers each attempt up to the response headers.
  const deadline = AbortSignal.timeout(resolved.timeoutMs);
  const scope: CallScope = { refused: undefined, stop: new AbortController() };
  const signal = AbortSignal.any([request.signal, deadline, scope.stop.signal]);
  const assembler = createStreamAssembler(request.callIndex);
  let phase: FailureContext['phase'] = 'request';

  try {
    const stream = await callScope.run(scope, () => client.chat.completions.create(
      {
        model: resolved.model,
        messages: toWireMessages(request.messages),
        stream: true,
        stream_options: { include_usage: true },
        ...(request.tools.length > 0 ? { tools: toWireTools(request.tools) } : {}),
        ...(request.responseFormat === undefined ? {} : { response_format: toWireResponseFormat(request.responseFormat) }),
        ...(resolved.temperature !== undefined ? { temperature: resolved.temperature } : {}),
        ...(resolved.maxOutputTokens !== undefined ? { [resolved.maxOutputTokensParameter]: resolved.maxOutputTokens } : {}),
      },
      { signal },
    ));
    phase = 'stream';
    // The SDK ends this loop quietly when the signal aborts; the checks below tell why it ended.
    for await (const chunk of stream) {
      const delta = assembler.push(chunk);
      if (delta !== '') emitDelta(request, delta);
    }
  } catch (error) {
    if (request.signal.aborted) return abortedFailure();
    if (deadline.aborted) return timeoutFailure(resolved.timeoutMs);
    if (scope.refused !== undefined) return toFailure({ kind: 'connection', message: scope.refused, retried: false }, { ...failureContext(resolved), phase: 'request' });
    if (error instanceof CallbackError) {
      return failure('internal_error', `onTextDelta threw: ${errorText(error.cause)}`, resolved.secrets);
    }
    return toFailure(describeFault(error), { ...failureContext(resolved), phase });
  }
  if (request.signal.aborted) return abortedFailure();
  if (deadline.aborted) return timeoutFailure(resolved.timeoutMs);

  const answer = assembler.finish();
  if (answer.finishReason === undefined) return incompleteStreamFailure(resolved.secrets);
  const usage = answer.usage ?? estimateUsage(request, answer);
  const warnings = answer.usage !== undefined ? answer.warnings : [...answer.warnings, estimatedUsageWarning(usage)];
  return {
    type: 'response',
    text: answer.text,
    toolCalls: answer.toolCalls,
    usage,
    costUsd: costOf(usage, pricing),
    finishReason: answer.finishReason,
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

/** Marks an exception thrown by the kernel's callback, so it is not mistaken for a network fault. */
class CallbackError extends Error {
  constructor(cause: unknown) {
    super('onTextDelta threw', { cause });
  }
}

function emitDelta(request: ModelRequest, delta: string): void {
  try {
    request.onTextDelta(delta);
  } catch (error) {
    throw new CallbackError(error);
  }
}

function failureContext(resolved: ResolvedOptions): Omit<FailureContext, 'phase'> {
  return {
    keySource: resolved.keySource,
    keyEnv: resolved.keyEnv,
    baseURL: resolved.baseURL,
    maxRetries: resolved.maxRetries,
    timeoutMs: resolved.timeoutMs,
    secrets: resolved.secrets,
  };
}

/** A `retry-after-ms` (milliseconds) or `retry-after` (seconds, or an HTTP date) header, capped at ten minutes. */
function retryAfter(milliseconds: string | null, seconds: string | null): number | undefined {
  const fromMs = milliseconds === null ? Number.NaN : Number(milliseconds);
  const fromSeconds = seconds === null ? Number.NaN : /^\s*\d+(\.\d+)?\s*$/.test(seconds) ? Number(seconds) * 1000 : Date.parse(seconds) - Date.now();
  const waitMs = Number.isFinite(fromMs) ? fromMs : fromSeconds;
  return Number.isFinite(waitMs) && waitMs > 0 ? Math.min(waitMs, 600_000) : undefined;
}

/** The only place that knows the SDK's error classes. Order matters: subclasses first. */
function describeFault(error: unknown): WireFault {
  if (error instanceof APIConnectionTimeoutError) return { kind: 'timeout' };
  if (error instanceof APIUserAbortError) return { kind: 'other', message: 'the request was aborted' };
  if (error instanceof APIConnectionError) {
    const cause = error.cause === undefined ? '' : errorText(error.cause);
    return { kind: 'connection', message: cause === '' || error.message.includes(cause) ? error.message : `${error.message} (${cause})` };
  }
  if (error instanceof APIError) {
    const body = error.error as { message?: unknown } | undefined;
    const message = typeof body?.message === 'string' ? body.message : error.message;
    if (error.status === undefined) return { kind: 'stream_error', message };
    // The SDK does not retry when the server says so; the failure message must not claim it did.
    const header = (name: string) => (error.headers as { get?: (name: string) => string | null } | undefined)?.get?.(name) ?? null;
    const shouldRetry = header('x-should-retry');
    const retryAfterMs = retryAfter(header('retry-after-ms'), header('retry-after'));
    return {
      kind: 'status',
      status: error.status,
      apiCode: typeof error.code === 'string' ? error.code : undefined,
      message,
      ...(shouldRetry === 'false' ? { retryRefused: true } : {}),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  }
  if (error instanceof SyntaxError) return { kind: 'malformed', message: error.message };
  return { kind: 'other', message: errorText(error) };
}
