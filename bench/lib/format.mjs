/** How the bench writes numbers: grouped thousands, and a median with its min–max. */
export const number = (value, digits = 0) => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** `median (min–max)` of a summarize() result, each written by `format`; '—' when missing. */
export function medianRange(summary, format = (value) => number(value)) {
  if (summary === undefined) return '—';
  return `${format(summary.median)} (${format(summary.min)}–${format(summary.max)})`;
}
