/** The `rateLimit` of a model (`openaiModel`, `aiSdkModel`, `withRateLimit`, a manifest's model block). */
import { z } from 'zod';
import { lazySchema } from '../contracts/lazy-schema.js';

export const RateLimitSchema = lazySchema(() =>
  z
    .strictObject({
      requestsPerMinute: z.number().int().positive().optional().describe('Most calls started in any minute'),
      tokensPerMinute: z.number().int().positive().optional().describe('Most tokens (input estimate plus maxOutputTokens, settled with real usage) in any minute'),
      shared: z.boolean().optional().describe('Keep the count in the Postgres store, shared by every process of a fleet (default: per process)'),
    })
    .refine((limit) => limit.requestsPerMinute !== undefined || limit.tokensPerMinute !== undefined, 'must set requestsPerMinute, tokensPerMinute or both')
    .describe('Calls wait for capacity under these limits (docs/operations.md, "Rate limits")'),
);
