import type { ModelFailure } from '../contracts/model.js';
import { errorText, serverAddress } from './error-text.js';

/** The failure codes `aiSdkModel` resolves with. Stable: tests and users match on them. */
export type AiSdkFailureCode =
  | 'auth_failed'
  | 'permission_denied'
  | 'bad_request'
  | 'not_found'
  | 'rate_limited'
  | 'server_error'
  | 'http_error'
  | 'connection_failed'
  | 'aborted'
  | 'stream_interrupted'
  | 'content_filter'
  | 'invalid_usage'
  | 'model_error'
  | 'internal_error';

const MAX_MESSAGE_LENGTH = 600;

export function aiSdkFailure(code: AiSdkFailureCode, message: string): ModelFailure {
  const bounded = message.length > MAX_MESSAGE_LENGTH ? `${message.slice(0, MAX_MESSAGE_LENGTH)}…` : message;
  return { type: 'failure', code, message: bounded };
}

/**
 * What a provider error says, read structurally: the AI SDK's `APICallError` carries `statusCode`
 * and `isRetryable`; other errors are described by their message. Read by shape rather than with
 * `APICallError.isInstance` so that loading this adapter does not load `@ai-sdk/provider`.
 */
export interface ProviderFault {
  readonly statusCode: number | undefined;
  readonly retryable: boolean;
  readonly message: string;
  /** A request that never got an answer (refused, reset, DNS). */
  readonly connection: boolean;
  /** Where the request went (an `APICallError`'s `url`), for what to check. */
  readonly url: string | undefined;
}

export function describeProviderError(error: unknown): ProviderFault {
  const record = typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};
  const statusCode = typeof record['statusCode'] === 'number' ? record['statusCode'] : undefined;
  const retryable = record['isRetryable'] === true;
  const message = errorText(error);
  const connection = statusCode === undefined && typeof record['isRetryable'] === 'boolean' && record['cause'] !== undefined;
  const url = typeof record['url'] === 'string' ? serverAddress(record['url']) : undefined;
  return { statusCode, retryable, message, connection, url };
}

/** The failure for a provider error, after `attempts` tries. */
export function faultFailure(fault: ProviderFault, attempts: number): ModelFailure {
  const tries = attempts === 1 ? '' : ` (after ${attempts} attempts)`;
  const retry = fault.retryable ? 'retryable' : 'not retryable';
  const detail = `${fault.message}${tries}; ${retry}`;
  const status = fault.statusCode;
  if (status === undefined && fault.connection) {
    const server = fault.url === undefined ? 'the server' : `the server at ${fault.url}`;
    return aiSdkFailure('connection_failed', `${detail}; check that ${server} is running and that the provider's base URL is right`);
  }
  if (status === undefined) return aiSdkFailure('model_error', detail);
  if (status === 401) return aiSdkFailure('auth_failed', `HTTP 401: ${detail}`);
  if (status === 403) return aiSdkFailure('permission_denied', `HTTP 403: ${detail}`);
  if (status === 404) return aiSdkFailure('not_found', `HTTP 404: ${detail}`);
  if (status === 429) return aiSdkFailure('rate_limited', `HTTP 429: ${detail}`);
  if (status >= 500) return aiSdkFailure('server_error', `HTTP ${status}: ${detail}`);
  if (status === 400 || status === 422) return aiSdkFailure('bad_request', `HTTP ${status}: ${detail}`);
  return aiSdkFailure('http_error', `HTTP ${status}: ${detail}`);
}
