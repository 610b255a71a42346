import type { KernelEvent } from '../contracts/events.js';
import type { CheckpointStore } from '../contracts/store.js';
import { childRunIdAt } from '../contracts/child-run-id.js';
import type { ChildRunLink } from './protocol.js';

/** A tool call of the run that may have delegated: the ids its child run would have. */
interface Candidate {
  readonly taskId: string;
  readonly turn: number;
  readonly toolCallId: string;
  readonly runIds: readonly string[];
  /** Its `tool_execution_end` has been seen: one more look, then it is dropped. */
  ended: boolean;
}

/**
 * Finds the child runs (`agentTool`) a run's tool calls started, from the run's own events: a
 * child's id is the parent's and the call's place (task, fan-out item, turn, position in the
 * model's answer: src/kernel/delegation.ts), so each call has one candidate id, which the store
 * either has — as a run whose `parent` is this call — or not. A call is looked up while it runs
 * (its child is recorded just after it starts) and once after it ended, then never again.
 */
export class ChildRunFinder {
  private readonly answers = new Map<string, readonly string[]>();
  private readonly candidates = new Map<string, Candidate>();
  private readonly found = new Map<string, ChildRunLink>();

  constructor(
    private readonly store: CheckpointStore,
    private readonly runId: string,
  ) {}

  /** The children found so far, in the order they were found. */
  get children(): readonly ChildRunLink[] {
    return [...this.found.values()];
  }

  /** Whether a call that has not ended may still turn out to have a child (the stream then keeps looking). */
  get looking(): boolean {
    return [...this.candidates.values()].some((candidate) => !candidate.ended);
  }

  observe(events: readonly KernelEvent[]): void {
    for (const event of events) {
      if (event.type === 'message_end') this.answers.set(turnKey(event.taskId, event.turn), event.toolCalls.map((call) => call.id));
      else if (event.type === 'tool_execution_start') {
        const key = callKey(event.taskId, event.turn, event.toolCallId);
        if (this.candidates.has(key) || this.found.has(key)) continue;
        const item = /\[(\d+)\]$/.exec(event.taskId)?.[1];
        const positions = (this.answers.get(turnKey(event.taskId, event.turn)) ?? []).flatMap((id, position) => (id === event.toolCallId ? [position] : []));
        const runIds = positions.map((position) => childRunIdAt(this.runId, { taskIndex: event.taskIndex, item: item === undefined ? undefined : Number(item), turn: event.turn, position }));
        if (runIds.length > 0) this.candidates.set(key, { taskId: event.taskId, turn: event.turn, toolCallId: event.toolCallId, runIds, ended: false });
      } else if (event.type === 'tool_execution_end') {
        const candidate = this.candidates.get(callKey(event.taskId, event.turn, event.toolCallId));
        if (candidate !== undefined) candidate.ended = true;
      }
    }
  }

  /** Looks the pending calls up in the store (all at once: a replayed run may have many); true when a child was found. */
  async lookUp(): Promise<boolean> {
    const pending = [...this.candidates];
    const children = await Promise.all(pending.map(([, candidate]) => this.childOf(candidate)));
    let grew = false;
    pending.forEach(([key, candidate], index) => {
      const runId = children[index];
      if (runId !== undefined) {
        this.found.set(key, { runId, taskId: candidate.taskId, turn: candidate.turn, toolCallId: candidate.toolCallId });
        grew = true;
      }
      if (runId !== undefined || candidate.ended) this.candidates.delete(key);
    });
    return grew;
  }

  private async childOf(candidate: Candidate): Promise<string | undefined> {
    for (const runId of candidate.runIds) {
      const record = await this.store.getRun(runId);
      if (record?.parent?.runId === this.runId && record.parent.toolCallId === candidate.toolCallId) return runId;
    }
    return undefined;
  }
}

const turnKey = (taskId: string, turn: number) => `${taskId}\u0000${turn}`;
const callKey = (taskId: string, turn: number, toolCallId: string) => `${taskId}\u0000${turn}\u0000${toolCallId}`;
