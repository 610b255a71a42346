import type { Message, ToolCall } from './messages.js';
import type { JsonSchema } from './turn-protocol.js';
import type { Usage } from './usage.js';

/** What the model sees of a tool: its name, description and JSON Schema (from zod). */
export interface ToolDescriptor {
  readonly name: string;
  readonly description: string;
  readonly parameters: Readonly<Record<string, unknown>>;
}

export interface ModelRequest {
  /** The transcript as this call sees it (after `transformContext` and ephemeral messages). */
  readonly messages: readonly Message[];
  /** Empty for the wrap-up call, which asks for a final answer without tools. */
  readonly tools: readonly ToolDescriptor[];
  /** Aborts when the task or session deadline fires or the caller cancels. Adapters must honour it. */
  readonly signal: AbortSignal;
  /**
   * How many calls this model has answered earlier in the run, restored on resume.
   * Deterministic models (the scripted model) use it instead of a private counter.
   */
  readonly callIndex: number;
  /** Streams text as it arrives; the kernel turns each delta into a `message_update` event. */
  readonly onTextDelta: (delta: string) => void;
  /**
   * The task the call is for (a graph's tasks call at once, in any order), and its turn; absent for
   * a strategy's planner calls. For deterministic models that answer by task, and for logs.
   */
  readonly taskId?: string;
  readonly turn?: number;
  /**
   * Set on every call of a task with an `output` schema (the wrap-up call included): the final
   * answer must be JSON matching `schema`. An adapter whose provider supports structured output
   * asks for it (`openaiModel`: `response_format` `json_schema`; `aiSdkModel`: `responseFormat`);
   * others may ignore it: the kernel also says so in the system message and checks every answer
   * itself (docs/providers.md, "Structured output").
   */
  readonly responseFormat?: ResponseFormat;
}

/** A request for a JSON answer matching a JSON Schema (typed task outputs). */
export interface ResponseFormat {
  readonly type: 'json';
  readonly schema: JsonSchema;
  /** A name for the schema (`[A-Za-z0-9_-]`, at most 64 characters), from the task's id. */
  readonly name: string;
}

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter';

export interface ModelResponse {
  readonly type: 'response';
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  readonly usage: Usage;
  /** Cost of this call in USD when the adapter knows its pricing; 0 otherwise. */
  readonly costUsd: number;
  readonly finishReason: FinishReason;
  /** Non-fatal notes (e.g. output truncated by `length`); each becomes a `warning` event. */
  readonly warnings?: readonly string[];
  /** The model that answered, when the provider says (it may differ from the requested `modelId`). */
  readonly responseModelId?: string;
}

/** A failed call, as data. `code` is a stable snake_case identifier (e.g. `auth_failed`, `rate_limited`). */
export interface ModelFailure {
  readonly type: 'failure';
  readonly code: string;
  readonly message: string;
  /** Usage already spent before the failure, when known. */
  readonly usage?: Usage;
  /** A rate-limited call (`rate_limited`): how long the provider asked to wait (`retry-after`), when it said. */
  readonly retryAfterMs?: number;
}

export type ModelResult = ModelResponse | ModelFailure;

/**
 * The model port. `call` should resolve to a `ModelFailure` rather than reject; the kernel
 * still turns a rejection into a failure, so a buggy adapter ends the task `error`, never the process.
 */
export interface Model {
  /** Provider name for logs and the audit (e.g. `openai`, `scripted`). */
  readonly provider: string;
  readonly modelId: string;
  /**
   * The secret values this model was configured with (its API key, every header value). The
   * kernel redacts each wherever it occurs in what it records or reports (ADR/0100). Adapters
   * that hold credentials should list them; the `redact` option covers the others.
   */
  readonly secrets?: readonly string[];
  /**
   * Calls of this model instance, across every run, branch and child of the process, wait for
   * capacity under these limits (docs/operations.md, "Rate limits").
   */
  readonly rateLimit?: RateLimit;
  /** The most tokens one answer may have, when the adapter caps it: reserved with each call under a `tokensPerMinute` limit. */
  readonly maxOutputTokens?: number;
  call(request: ModelRequest): Promise<ModelResult>;
}

/**
 * A model's rate limit. Requests and tokens are counted in any sliding minute; a call waits until
 * it fits. `shared: true` keeps the count in the run's Postgres store, so that every process of a
 * fleet using a model of this provider and id shares one quota.
 */
export interface RateLimit {
  readonly requestsPerMinute?: number;
  readonly tokensPerMinute?: number;
  readonly shared?: boolean;
}
