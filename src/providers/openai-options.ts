import { z } from 'zod';
import { lazySchema } from '../contracts/lazy-schema.js';
import { ConfigError, type ConfigIssue } from '../errors.js';
import type { KeySource } from './openai-errors.js';
import type { ModelPricing } from './pricing.js';
import type { RateLimit } from '../contracts/model.js';
import { RateLimitSchema } from './rate-limit-schema.js';

/** Options of `openaiModel`. Every field but `model` is optional. */
export interface OpenAIModelOptions {
  /** Model name as the server knows it (`gpt-4.1-mini`, `llama3.1`, an Azure deployment name…). */
  readonly model: string;
  /** Defaults to the variable `apiKeyEnv` names. Optional when `baseURL` (or `OPENAI_BASE_URL`) is set. */
  readonly apiKey?: string;
  /** The environment variable the key is read from when `apiKey` is not given. Default `OPENAI_API_KEY`. */
  readonly apiKeyEnv?: string;
  /** Any OpenAI-compatible `/v1` root. Defaults to `OPENAI_BASE_URL`, then `https://api.openai.com/v1`. */
  readonly baseURL?: string;
  /** Sent as the `OpenAI-Organization` header. */
  readonly organization?: string;
  readonly temperature?: number;
  /** Upper bound on generated tokens per call; sent as `maxOutputTokensParameter`. */
  readonly maxOutputTokens?: number;
  /**
   * The request field that carries `maxOutputTokens`. OpenAI's reasoning models accept only
   * `max_completion_tokens` (the default); Ollama and LM Studio understand only `max_tokens`.
   */
  readonly maxOutputTokensParameter?: 'max_completion_tokens' | 'max_tokens';
  /** USD per million tokens; overrides the built-in table. Without either, cost is 0. */
  readonly pricing?: ModelPricing;
  /** Deadline for one whole call, retries and streaming included. Default 600 000 (10 minutes). */
  readonly timeoutMs?: number;
  /** Retries of 408/409/429/5xx and connection failures before any byte of the answer arrived. Default 2. */
  readonly maxRetries?: number;
  /** Extra headers on every request (e.g. Azure's `api-key`, OpenRouter's `HTTP-Referer`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Calls of this model wait for capacity under these limits (docs/operations.md, "Rate limits"). */
  readonly rateLimit?: RateLimit;
}

export const DEFAULT_TIMEOUT_MS = 600_000;
export const DEFAULT_MAX_RETRIES = 2;
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** Sent as the bearer token when a custom base URL is used without a key; such servers ignore it. */
export const PLACEHOLDER_API_KEY = 'not-needed';

const Pricing = lazySchema(() => z.strictObject({
  inputPerMillion: z.number().nonnegative(),
  outputPerMillion: z.number().nonnegative(),
}));

const Options = lazySchema(() => z.strictObject({
  model: z.string().trim().min(1, 'must be a non-empty model name'),
  apiKey: z.string().min(1, 'must not be empty (omit it to use OPENAI_API_KEY)').optional(),
  apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name').optional(),
  baseURL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  organization: z.string().min(1).optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  maxOutputTokensParameter: z.enum(['max_completion_tokens', 'max_tokens']).optional(),
  pricing: Pricing().optional(),
  timeoutMs: z.number().int().positive().optional(),
  maxRetries: z.number().int().min(0).max(10).optional(),
  headers: z.record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be a valid HTTP header name'), z.string()).optional(),
  rateLimit: RateLimitSchema().optional(),
}));

/** Options after validation and environment lookup: what the adapter actually uses. */
export interface ResolvedOptions {
  readonly model: string;
  /** `undefined` when no credential is configured at all. */
  readonly apiKey: string | undefined;
  readonly keySource: KeySource;
  /** The environment variable the key is (or would have been) read from. */
  readonly keyEnv: string;
  /** Whether a base URL was configured (option or environment), which makes a key optional. */
  readonly customBaseURL: boolean;
  readonly baseURL: string;
  readonly organization: string | undefined;
  readonly temperature: number | undefined;
  readonly maxOutputTokens: number | undefined;
  readonly maxOutputTokensParameter: 'max_completion_tokens' | 'max_tokens';
  readonly pricing: ModelPricing | undefined;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Secret values that must never appear in a failure message. */
  readonly secrets: readonly string[];
}

const CREDENTIAL_HEADER = /^(authorization|api-key|x-api-key)$/i;
const SECRET_HEADER = /key|auth|token|secret|cookie/i;

/**
 * Validates `options` and resolves them against `environment` (read once, at construction).
 * Throws one `ConfigError` listing every bad field. A missing key is not an error here: local
 * servers need none, and without a base URL the call itself resolves to `auth_failed`.
 */
export function resolveOptions(options: unknown, environment: Readonly<Record<string, string | undefined>>): ResolvedOptions {
  const parsed = Options().safeParse(options);
  if (!parsed.success) {
    throw new ConfigError({ message: 'Invalid openaiModel options', issues: toIssues(parsed.error), cause: parsed.error });
  }
  const value = parsed.data;
  const headers = value.headers ?? {};
  const keyEnv = value.apiKeyEnv ?? 'OPENAI_API_KEY';
  const environmentKey = nonEmpty(environment[keyEnv]);
  const environmentURL = nonEmpty(environment['OPENAI_BASE_URL']);
  const hasCredentialHeader = Object.keys(headers).some((name) => CREDENTIAL_HEADER.test(name));

  let apiKey: string | undefined;
  let keySource: KeySource;
  if (value.apiKey !== undefined) [apiKey, keySource] = [value.apiKey, 'apiKey option'];
  else if (environmentKey !== undefined) [apiKey, keySource] = [environmentKey, 'environment'];
  else [apiKey, keySource] = [undefined, hasCredentialHeader ? 'headers option' : 'none'];

  const baseURL = value.baseURL ?? environmentURL;
  if (value.baseURL === undefined && environmentURL !== undefined && !isHttpURL(environmentURL)) {
    throw new ConfigError({
      message: 'Invalid openaiModel options',
      issues: [{ path: 'baseURL', message: 'OPENAI_BASE_URL must be an http(s) URL' }],
    });
  }

  const secretHeaderValues = Object.entries(headers)
    .filter(([name]) => SECRET_HEADER.test(name))
    .flatMap(([, headerValue]) => [headerValue, headerValue.replace(/^Bearer\s+/i, '')]);

  return {
    model: value.model,
    apiKey,
    keySource,
    keyEnv,
    customBaseURL: baseURL !== undefined,
    baseURL: baseURL ?? OPENAI_BASE_URL,
    organization: value.organization,
    temperature: value.temperature,
    maxOutputTokens: value.maxOutputTokens,
    maxOutputTokensParameter: value.maxOutputTokensParameter ?? 'max_completion_tokens',
    pricing: value.pricing,
    timeoutMs: value.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: value.maxRetries ?? DEFAULT_MAX_RETRIES,
    headers,
    secrets: [...(apiKey === undefined ? [] : [apiKey]), ...secretHeaderValues].filter((secret) => secret.length > 0),
  };
}

function isHttpURL(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

function toIssues(error: z.ZodError): ConfigIssue[] {
  return error.issues.flatMap((issue): ConfigIssue[] => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: path === '' ? key : `${path}.${key}`, message: 'unknown option' }));
    }
    return [{ path: path === '' ? '(options)' : path, message: issue.message }];
  });
}
