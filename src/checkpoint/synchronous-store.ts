import type { AuditReport } from '../contracts/audit.js';
import type { KernelEvent } from '../contracts/events.js';
import type { WorkflowResult } from '../contracts/results.js';
import type { CheckpointEntry, CheckpointIndexEntry, StoredCheckpoints } from '../contracts/checkpoint.js';
import type { CheckpointStore, LeaseOptions, LeaseResult, RunRecord, RunSummary } from '../contracts/store.js';
import type { ToolResult } from '../contracts/tool.js';

/**
 * A CheckpointStore whose every method answers synchronously, as the embedded stores (memory,
 * SQLite) do: callers outside the kernel (a CLI, a test, an admin script) need no `await`.
 */
export interface SynchronousStore extends CheckpointStore {
  createRun(record: RunRecord): void;
  getRun(runId: string): RunRecord | undefined;
  saveCheckpoint(entry: CheckpointEntry, fence?: number): void;
  loadCheckpoint(runId: string, at?: { readonly sequence: number }): StoredCheckpoints | undefined;
  listCheckpoints(runId: string): readonly CheckpointIndexEntry[];
  recordToolResult(runId: string, result: ToolResult, fence?: number): void;
  getToolResult(runId: string, toolCallId: string): ToolResult | undefined;
  appendEvent(event: KernelEvent, fence?: number): void;
  readEvents(runId: string, afterSeq?: number): readonly KernelEvent[];
  saveResult(result: WorkflowResult, fence?: number): void;
  loadResult(runId: string): WorkflowResult | undefined;
  listRuns(options?: { readonly limit?: number }): readonly RunSummary[];
  acquireLease(runId: string, holder: string, ttlMs: number, options?: LeaseOptions): LeaseResult;
  releaseLease(runId: string, holder: string): void;
  audit(runId: string): AuditReport | undefined;
}
