export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export const ZERO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0 });

/**
 * A sum of token counts, held at `Number.MAX_SAFE_INTEGER`: each count a model reports is a safe
 * integer (usageProblem), and their sum stays one, so a huge count still trips every budget and
 * never becomes an inexact number in the metrics.
 */
export function addCounts(a: number, b: number): number {
  return Math.min(a + b, Number.MAX_SAFE_INTEGER);
}

export function addUsage(a: Usage, b: Usage): Usage {
  return { inputTokens: addCounts(a.inputTokens, b.inputTokens), outputTokens: addCounts(a.outputTokens, b.outputTokens) };
}

export function totalTokens(usage: Usage): number {
  return usage.inputTokens + usage.outputTokens;
}

/**
 * What is wrong with a usage or cost a model reported, or undefined when nothing is. Token counts
 * must be non-negative safe integers and a cost a non-negative finite number: anything else (a
 * negative, a string, NaN, Infinity) would silently disable token and cost budgets (ADR 0112).
 */
export function usageProblem(usage: unknown, costUsd?: unknown): string | undefined {
  if (typeof usage !== 'object' || usage === null) return `usage is ${describeValue(usage)}, not { inputTokens, outputTokens }`;
  const problems: string[] = [];
  for (const field of ['inputTokens', 'outputTokens'] as const) {
    const value = (usage as Record<string, unknown>)[field];
    if (!Number.isSafeInteger(value) || (value as number) < 0) problems.push(`usage.${field} is ${describeValue(value)}, not a non-negative integer`);
  }
  if (costUsd !== undefined && (typeof costUsd !== 'number' || !Number.isFinite(costUsd) || costUsd < 0)) {
    problems.push(`costUsd is ${describeValue(costUsd)}, not a non-negative finite number`);
  }
  return problems.length === 0 ? undefined : problems.join('; ');
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean' || value === undefined || value === null) return String(value);
  return typeof value;
}
