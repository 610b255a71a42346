/** Median with min and max: every figure is reported this way (noise is large on shared cores). */
export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1], samples };
}

/** How many times `value` is `reference` (medians); undefined when either is missing. */
export function ratio(value, reference) {
  if (value === undefined || reference === undefined || reference.median === 0) return undefined;
  return value.median / reference.median;
}
