import type { Usage } from '../contracts/usage.js';

/** USD per one million tokens. */
export interface ModelPricing {
  readonly inputPerMillion: number;
  readonly outputPerMillion: number;
}

/**
 * The day the built-in table below was last checked against OpenAI's published list prices.
 * The figures are approximate: they ignore cached-input discounts, batch and flex tiers, and
 * any price change after this date. Pass `pricing` to `openaiModel` when the cost budget matters.
 */
export const PRICING_AS_OF = '2026-06-01';

/**
 * Standard-tier list prices for a few widely used OpenAI models, keyed by model name.
 * Deliberately small: a wrong price is worse than none (none gives cost 0 and the docs say so).
 */
export const BUILT_IN_PRICING: Readonly<Record<string, ModelPricing>> = Object.freeze({
  'gpt-5': { inputPerMillion: 1.25, outputPerMillion: 10 },
  'gpt-5-mini': { inputPerMillion: 0.25, outputPerMillion: 2 },
  'gpt-5-nano': { inputPerMillion: 0.05, outputPerMillion: 0.4 },
  'gpt-4.1': { inputPerMillion: 2, outputPerMillion: 8 },
  'gpt-4.1-mini': { inputPerMillion: 0.4, outputPerMillion: 1.6 },
  'gpt-4.1-nano': { inputPerMillion: 0.1, outputPerMillion: 0.4 },
  'gpt-4o': { inputPerMillion: 2.5, outputPerMillion: 10 },
  'gpt-4o-mini': { inputPerMillion: 0.15, outputPerMillion: 0.6 },
  o3: { inputPerMillion: 2, outputPerMillion: 8 },
  'o4-mini': { inputPerMillion: 1.1, outputPerMillion: 4.4 },
});

/** A dated snapshot such as `gpt-4o-2024-08-06` is priced like its family name. */
const SNAPSHOT_SUFFIX = /-\d{4}-\d{2}-\d{2}$/;

/**
 * The built-in price for a model name: an exact match, or the family of a dated snapshot.
 * No prefix matching beyond that: `gpt-5-pro` must not be priced as `gpt-5`.
 */
export function builtInPricing(model: string): ModelPricing | undefined {
  const exact = BUILT_IN_PRICING[model];
  if (exact !== undefined) return exact;
  if (!SNAPSHOT_SUFFIX.test(model)) return undefined;
  return BUILT_IN_PRICING[model.replace(SNAPSHOT_SUFFIX, '')];
}

/** Explicit pricing wins over the table; no pricing at all costs 0. */
export function resolvePricing(model: string, explicit: ModelPricing | undefined): ModelPricing | undefined {
  return explicit ?? builtInPricing(model);
}

export function costOf(usage: Usage, pricing: ModelPricing | undefined): number {
  if (pricing === undefined) return 0;
  return (usage.inputTokens * pricing.inputPerMillion + usage.outputTokens * pricing.outputPerMillion) / 1_000_000;
}
