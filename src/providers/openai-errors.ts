import type { ModelFailure } from '../contracts/model.js';
import { OPENAI_BASE_URL } from './openai-options.js';

/*
 * Turns what went wrong on the wire into a `ModelFailure` with a stable code. The SDK's error
 * classes are recognised in `openai-model.ts` and described here as plain `WireFault`s.
 */

/** The failure codes `openaiModel` resolves with. Stable: tests and users match on them. */
export type OpenAIFailureCode =
  | 'auth_failed'
  | 'permission_denied'
  | 'bad_request'
  | 'context_length_exceeded'
  | 'content_filter'
  | 'not_found'
  | 'rate_limited'
  | 'quota_exceeded'
  | 'server_error'
  | 'http_error'
  | 'connection_failed'
  | 'timeout'
  | 'aborted'
  | 'stream_interrupted'
  | 'bad_response'
  | 'internal_error';

/** What went wrong, independent of the SDK's classes. */
export type WireFault =
  /** The server answered with an error status (after the SDK's retries, for retryable ones). */
  | { readonly kind: 'status'; readonly status: number; readonly apiCode: string | undefined; readonly message: string; readonly retryRefused?: true; readonly retryAfterMs?: number }
  /** The server sent an error object inside an otherwise successful stream. */
  | { readonly kind: 'stream_error'; readonly message: string }
  /** No response: refused, reset, DNS, TLS (after the SDK's retries; `retried: false` when a refusal stopped them). */
  | { readonly kind: 'connection'; readonly message: string; readonly retried?: boolean }
  /** The SDK's per-attempt timeout fired on its last attempt. */
  | { readonly kind: 'timeout' }
  /** A server-sent event whose data was not JSON. */
  | { readonly kind: 'malformed'; readonly message: string }
  /** Anything else thrown while the request or the stream was in progress. */
  | { readonly kind: 'other'; readonly message: string };

/**
 * Where the key came from, for messages that must say which one was used but never show it:
 * `environment` is the variable `keyEnv` names (`OPENAI_API_KEY` unless `apiKeyEnv` says otherwise).
 */
export type KeySource = 'apiKey option' | 'environment' | 'headers option' | 'none';

export interface FailureContext {
  /** `request` until the response headers arrived; `stream` while reading the body. */
  readonly phase: 'request' | 'stream';
  readonly keySource: KeySource;
  /** The environment variable the key is read from. */
  readonly keyEnv: string;
  readonly baseURL: string;
  readonly maxRetries: number;
  readonly timeoutMs: number;
  /** Every secret value configured (API key, credential header values); none may appear in a message. */
  readonly secrets: readonly string[];
}

const MAX_MESSAGE_LENGTH = 600;

export function failure(code: OpenAIFailureCode, message: string, secrets: readonly string[]): ModelFailure {
  return { type: 'failure', code, message: redactSecrets(message, secrets) };
}

export function describeKeySource(source: KeySource, keyEnv: string): string {
  switch (source) {
    case 'apiKey option':
      return 'the key from the apiKey option';
    case 'environment':
      return `the key from the ${keyEnv} environment variable`;
    case 'headers option':
      return 'the credential header from the headers option';
    case 'none':
      return `no key (neither the apiKey option nor ${keyEnv} is set; a placeholder was sent)`;
  }
}

export function missingKeyFailure(keyEnv: string): ModelFailure {
  return failure(
    'auth_failed',
    `no OpenAI API key: set the ${keyEnv} environment variable or pass the apiKey option ` +
      '(a key is optional only when baseURL or OPENAI_BASE_URL points at a server that needs none)',
    [],
  );
}

export function abortedFailure(): ModelFailure {
  return failure('aborted', 'the model call was aborted by its AbortSignal', []);
}

export function timeoutFailure(timeoutMs: number): ModelFailure {
  return failure('timeout', `the model call did not finish within timeoutMs (${timeoutMs} ms)`, []);
}

export function incompleteStreamFailure(secrets: readonly string[]): ModelFailure {
  return failure(
    'stream_interrupted',
    'the response stream ended before any finish_reason arrived; the answer is incomplete',
    secrets,
  );
}

export function toFailure(fault: WireFault, context: FailureContext): ModelFailure {
  const { secrets } = context;
  const retries = context.maxRetries === 0 ? 'with retries disabled' : `after retrying up to ${context.maxRetries} time${context.maxRetries === 1 ? '' : 's'}`;
  switch (fault.kind) {
    case 'status':
      return statusFailure(fault, context, fault.retryRefused === true ? 'without retrying (the server sent x-should-retry: false)' : retries);
    case 'stream_error':
      return failure('server_error', `the server reported an error inside the stream: ${fault.message}`, secrets);
    case 'connection':
      return context.phase === 'stream'
        ? failure('stream_interrupted', `the response stream broke off: ${fault.message}`, secrets)
        : failure('connection_failed', `could not reach ${safeURL(context.baseURL)} ${fault.retried === false ? '(not retried: it would fail the same way)' : retries}: ${fault.message}; ${whatToCheck(context.baseURL)}`, secrets);
    case 'timeout':
      return timeoutFailure(context.timeoutMs);
    case 'malformed':
      return failure('bad_response', `the server sent a malformed stream: ${fault.message}`, secrets);
    case 'other':
      return context.phase === 'stream'
        ? failure('stream_interrupted', `the response stream broke off: ${fault.message}`, secrets)
        : failure('internal_error', `unexpected error while calling the model: ${fault.message}`, secrets);
  }
}

function statusFailure(fault: Extract<WireFault, { kind: 'status' }>, context: FailureContext, retries: string): ModelFailure {
  const { status, apiCode, message } = fault;
  const detail = `(HTTP ${status}): ${message}`;
  const key = describeKeySource(context.keySource, context.keyEnv);
  const { secrets } = context;
  if (status === 401) return failure('auth_failed', `authentication failed with ${key} ${detail}`, secrets);
  if (status === 403) return failure('permission_denied', `permission denied for ${key} ${detail}`, secrets);
  if (status === 429) {
    return apiCode === 'insufficient_quota'
      ? failure('quota_exceeded', `quota exceeded ${retries} ${detail}`, secrets)
      : { ...failure('rate_limited', `rate limited ${retries} ${detail}`, secrets), ...(fault.retryAfterMs === undefined ? {} : { retryAfterMs: fault.retryAfterMs }) };
  }
  if (status >= 500) return failure('server_error', `server error ${retries} ${detail}`, secrets);
  if (status === 404) {
    return failure('not_found', `not found (check the model name and the base URL ${safeURL(context.baseURL)}) ${detail}`, secrets);
  }
  // Azure refuses a filtered prompt with 400 `content_filter`; a filtered answer is a finish reason instead.
  if (apiCode === 'content_filter') return failure('content_filter', `the provider's content filter refused the request ${detail}`, secrets);
  if (apiCode === 'context_length_exceeded') return failure('context_length_exceeded', `the transcript is too long for the model ${detail}`, secrets);
  if (status === 400 || status === 413 || status === 422) return failure('bad_request', `the server rejected the request ${detail}`, secrets);
  return failure('http_error', `unexpected HTTP status ${detail}`, secrets);
}

/** What a user can check when no answer came: their own server, or their way out to OpenAI's. */
function whatToCheck(baseURL: string): string {
  return baseURL === OPENAI_BASE_URL
    ? 'check the network connection (and any proxy) to api.openai.com'
    : 'check that the server is running and that baseURL (or OPENAI_BASE_URL) is its address';
}

/** Drops user:password from a URL before it goes into a message. */
function safeURL(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(invalid base URL)';
  }
}

/** Shortest run of a secret that counts as a fragment of it. */
const MIN_FRAGMENT = 6;
const MASKED_TOKEN = /[^\s"'`,;()[\]{}]*\*{3,}[^\s"'`,;()[\]{}.]*/g;
const KEY_LIKE_TOKEN = /\b(?:sk|rk|sess)-[A-Za-z0-9_\-*]{4,}/g;

/**
 * Removes every secret and every fragment of one from `text`. Servers echo keys back in error
 * messages, usually masked (`Incorrect API key provided: sk-abc***xyz`), so besides the exact values
 * this removes masked tokens, key-shaped tokens, and any run of at least six characters of a secret.
 * The message is also capped in length.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  // Key-shaped and masked tokens first, so `sk-abc***xyz` becomes one `[redacted]`, not several.
  let result = text.replace(KEY_LIKE_TOKEN, '[redacted]').replace(MASKED_TOKEN, '[redacted]');
  for (const secret of secrets) {
    if (secret.length === 0) continue;
    result = result.split(secret).join('[redacted]');
    result = removeFragments(result, secret);
  }
  return result.length <= MAX_MESSAGE_LENGTH ? result : `${result.slice(0, MAX_MESSAGE_LENGTH)}…`;
}

function removeFragments(text: string, secret: string): string {
  if (secret.length < MIN_FRAGMENT) return text;
  let result = text;
  // Longest fragments first, so a long match is replaced whole rather than in pieces.
  for (let length = secret.length - 1; length >= MIN_FRAGMENT; length -= 1) {
    for (let start = 0; start + length <= secret.length; start += 1) {
      const fragment = secret.slice(start, start + length);
      if (result.includes(fragment)) result = result.split(fragment).join('[redacted]');
    }
  }
  return result;
}
