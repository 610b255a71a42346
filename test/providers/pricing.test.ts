import { describe, expect, it } from 'vitest';
import { BUILT_IN_PRICING, builtInPricing, costOf, PRICING_AS_OF, resolvePricing } from '../../src/providers/pricing.js';

describe('pricing', () => {
  it('is dated', () => {
    expect(PRICING_AS_OF).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(Object.keys(BUILT_IN_PRICING).length).toBeGreaterThan(0);
  });

  it('prices dated snapshots like their family but never guesses by prefix', () => {
    expect(builtInPricing('gpt-4o-2024-08-06')).toEqual(BUILT_IN_PRICING['gpt-4o']);
    expect(builtInPricing('gpt-4o-mini')).toEqual(BUILT_IN_PRICING['gpt-4o-mini']);
    expect(builtInPricing('gpt-5-pro')).toBeUndefined();
    expect(builtInPricing('llama3.1')).toBeUndefined();
  });

  it('lets explicit pricing win and costs 0 without any', () => {
    const explicit = { inputPerMillion: 1, outputPerMillion: 1 };

    expect(resolvePricing('gpt-4o', explicit)).toBe(explicit);
    expect(costOf({ inputTokens: 2_000_000, outputTokens: 1_000_000 }, explicit)).toBe(3);
    expect(costOf({ inputTokens: 2_000_000, outputTokens: 1_000_000 }, undefined)).toBe(0);
  });
});
