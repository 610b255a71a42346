/**
 * What a run has spent so far, all its running tasks together: tokens and cost charged as each
 * model call answers (and as a strategy's planner calls do). A graph's branches read it at each
 * CHECK_STOP, so a workflow budget (`bounds.outer.maxTokens`, `maxCostUsd`) holds across every
 * branch at once: once it is reached, each running branch stops at its next check, having made at
 * most the one model call it had in flight (docs/workflows.md). A list's one task reads the same
 * total it always did: the workflow before it plus its own. One per run, in its runtime.
 */
import type { Usage } from '../contracts/usage.js';
import type { WorkflowProgress } from '../contracts/workflow-protocol.js';

export interface Spent {
  readonly tokens: number;
  readonly costUsd: number;
}

export class SpendLedger {
  private tokens: number;
  private costUsd: number;

  /**
   * From a run's progress: its committed metrics and what its restored tasks had spent. A
   * delegated run's ledger also charges its parent's (and so on up), as each call answers.
   */
  constructor(
    progress: WorkflowProgress,
    private readonly parent?: SpendLedger,
  ) {
    const restored = progress.active !== undefined ? [progress.active] : (progress.branches ?? []);
    this.tokens = progress.metrics.inputTokens + progress.metrics.outputTokens;
    this.costUsd = progress.metrics.costUsd;
    for (const { point } of restored) {
      this.tokens += point.progress.usage.inputTokens + point.progress.usage.outputTokens;
      this.costUsd += point.progress.costUsd;
    }
  }

  charge(usage: Usage | undefined, costUsd: number): void {
    if (usage !== undefined) this.tokens += usage.inputTokens + usage.outputTokens;
    this.costUsd += costUsd;
    this.parent?.charge(usage, costUsd);
  }

  total(): Spent {
    return { tokens: this.tokens, costUsd: this.costUsd };
  }
}
