import type { CheckpointStore } from 'dualloop';

/** Runs each question as its own run on `store` (capital-france, capital-japan, capital-peru); one line per run. */
export function recordCapitals(store: CheckpointStore): Promise<string[]>;
