import type { BoundsOverride } from '../contracts/bounds.js';

/** A case's bounds: the candidate's own, its workflow cost held within what the suite has left. */
export function boundsWithin(bounds: BoundsOverride | undefined, maxCostUsd: number | undefined): BoundsOverride | undefined {
  if (maxCostUsd === undefined) return bounds;
  const own = bounds?.outer?.maxCostUsd;
  return { ...bounds, outer: { ...bounds?.outer, maxCostUsd: own === undefined ? maxCostUsd : Math.min(own, maxCostUsd) } };
}
