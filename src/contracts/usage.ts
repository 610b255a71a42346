export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export const ZERO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0 });

export function addUsage(a: Usage, b: Usage): Usage {
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
}

export function totalTokens(usage: Usage): number {
  return usage.inputTokens + usage.outputTokens;
}
