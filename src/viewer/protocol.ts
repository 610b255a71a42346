/**
 * What the viewer's server sends its page. Types only: the page (src/viewer/web/) and the server
 * share them, so a change to one side fails the other's typecheck.
 */
import type { AuditReport } from '../contracts/audit.js';
import type { Bounds } from '../contracts/bounds.js';
import type { KernelEvent } from '../contracts/events.js';
import type { RunParent, RunSummary } from '../contracts/store.js';
import type { TaskSpec } from '../contracts/turn-protocol.js';

/** One state of a machine, as its definition gives it. */
export interface GraphNode {
  /** The state's path below the machine's root, dot-separated: `TASK_SELECT.PICK`. */
  readonly path: string;
  readonly key: string;
  /** Path of the parent state; undefined for the root's own states. */
  readonly parent: string | undefined;
  readonly type: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  /** The state its parent enters first. */
  readonly initial: boolean;
  /** The actors the state invokes while it is active. */
  readonly invokes: readonly InvokedActor[];
  /** The actions the state runs when it is entered, by name. */
  readonly entry: readonly string[];
  /** The actions the state runs when it is left, whichever transition leaves it, by name. */
  readonly exit: readonly string[];
}

/** An invoked actor: its id (events name it: `task done`) and the logic it runs. */
export interface InvokedActor {
  readonly id: string;
  readonly src: string;
}

/** Every transition between the same two states, merged: one label per transition. */
export interface GraphEdge {
  /** Source path; `''` is the machine's root: the transition applies from any state. */
  readonly source: string;
  readonly target: string;
  /** What the viewer draws: the event and the guard (`MODEL_DONE (hasToolCalls)`). */
  readonly labels: readonly string[];
  /** The actions each transition runs, by name: `actions[i]` belongs to `labels[i]` (docs/diagrams.md shows them). */
  readonly actions: readonly (readonly string[])[];
}

/**
 * A transition without a target: it runs its actions and the machine stays in its state (STEER,
 * TOOL_STARTED, an ABORT while a task runs). docs/diagrams.md lists them; the viewer draws no arrow.
 */
export interface TargetlessTransition {
  /** The state that declares it; `''` is the machine's root: it applies in any state. */
  readonly source: string;
  /** The event and the guard, as on an edge (`ABORT (taskRunning)`). */
  readonly label: string;
  /** The actions it runs, by name. */
  readonly actions: readonly string[];
}

/** A machine drawn from its definition (src/viewer/machine-graph.ts). */
export interface MachineGraph {
  readonly id: string;
  /** Actors the machine itself invokes: they live as long as it does. */
  readonly invokes: readonly InvokedActor[];
  /** The actions the machine runs when it starts, by name. */
  readonly entry: readonly string[];
  readonly nodes: readonly GraphNode[];
  /** Targeted transitions between states; root-level ones have `source: ''`. */
  readonly edges: readonly GraphEdge[];
  /** Transitions that only run actions, in definition order (the root's first). */
  readonly targetless: readonly TargetlessTransition[];
}

export interface MachineGraphs {
  readonly workflow: MachineGraph;
  readonly turn: MachineGraph;
}

/** What the page needs to know about a run besides its events. */
export interface RunInfo {
  readonly runId: string;
  readonly name: string | undefined;
  readonly createdAt: number | undefined;
  /** The tasks the run was started with, each with its inner bounds. */
  readonly tasks: readonly TaskSpec[];
  /** The run's bounds when the viewer knows them (the command reads them from the manifest). */
  readonly bounds: Bounds | undefined;
  /** A delegated run (`agentTool`): the run and tool call that started it. */
  readonly parent?: RunParent;
}

/** A child run (`agentTool`) one of the run's tool calls started: the timeline links the call to it. */
export interface ChildRunLink {
  readonly runId: string;
  readonly taskId: string;
  readonly turn: number;
  readonly toolCallId: string;
}

/**
 * Server-sent events of `/api/runs/<runId>/stream`, by SSE event name:
 * - `run`: RunInfo, first;
 * - `events`: KernelEvent[] in seq order (the SSE id is the last seq, so a reconnect resumes);
 * - `audit`: AuditReport, whenever the run has a result (again after a resume ends);
 * - `children`: ChildRunLink[], every child run found so far, whenever one more is found;
 * - `missing`: `{ runId }` when the store has no such run.
 */
export type StreamMessage =
  | { readonly event: 'run'; readonly data: RunInfo }
  | { readonly event: 'events'; readonly data: readonly KernelEvent[] }
  | { readonly event: 'audit'; readonly data: AuditReport }
  | { readonly event: 'children'; readonly data: readonly ChildRunLink[] }
  | { readonly event: 'missing'; readonly data: { readonly runId: string } };

export interface RunsResponse {
  readonly runs: readonly RunSummary[];
  /** The run the viewer was started for, if any. */
  readonly selected: string | undefined;
  /** The viewer was started with control: "fork from here" is enabled (`POST /api/runs/<runId>/fork`). */
  readonly control: boolean;
  /** The control answers approvals: a parked run's approvals can be answered, arguments edited (`POST /api/runs/<runId>/approve`). */
  readonly approve: boolean;
}
