/** Where a model block is in a manifest: its `model`, its `planner`, a guardrail's `judge.model` or an agent's `model` (a YAML path). */
export type ModelAt = 'model' | 'planner' | readonly (string | number)[];

export function pathOf(at: ModelAt): readonly (string | number)[] {
  return typeof at === 'string' ? [at] : at;
}
