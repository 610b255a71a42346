/** `withRateLimit(model, limit)`: any model — scripted, AI SDK, your own — with a rate limit (docs/operations.md, "Rate limits"). */
import type { Model, RateLimit } from '../contracts/model.js';
import { zodIssues } from '../contracts/zod-issues.js';
import { ConfigError } from '../errors.js';
import { RateLimitSchema } from './rate-limit-schema.js';

/**
 * A model that calls `model` under `limit`. The limit holds per returned instance: give every
 * kernel of the process this same instance, and they share it. Throws ConfigError for a bad limit.
 */
export function withRateLimit(model: Model, limit: RateLimit, options: { readonly maxOutputTokens?: number } = {}): Model {
  const parsed = RateLimitSchema().safeParse(limit);
  if (!parsed.success) throw new ConfigError({ message: 'Invalid rateLimit', issues: zodIssues(parsed.error, 'rateLimit') });
  const maxOutputTokens = options.maxOutputTokens ?? model.maxOutputTokens;
  return {
    provider: model.provider,
    modelId: model.modelId,
    ...(model.secrets === undefined ? {} : { secrets: model.secrets }),
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    rateLimit: parsed.data,
    call: (request) => model.call(request),
  };
}
