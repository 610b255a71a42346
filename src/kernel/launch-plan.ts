/**
 * What a run is launched from (src/kernel/launch-run.ts): the plan of a start, a resume or a fork,
 * and the kernel's parts every run of it shares.
 */
import type { OuterBounds } from '../contracts/bounds.js';
import type { DelegateCall } from '../contracts/delegation.js';
import type { RunParent } from '../contracts/store.js';
import type { ForkOrigin } from '../contracts/fork.js';
import type { ApprovalAnswer } from '../contracts/policy.js';
import type { TaskSpec } from '../contracts/turn-protocol.js';
import type { WorkflowProgress } from '../contracts/workflow-protocol.js';
import type { RebuiltCheckpoint } from '../checkpoint/read-checkpoints.js';
import type { DelegatingCall } from '../tools/tool-port.js';
import type { RunFence } from './fenced-store.js';
import type { KernelDeps } from './kernel-deps.js';
import type { ProvidedWorkflowMachine } from './provide-machines.js';
import type { LeaseKeeper } from './run-lease.js';
import type { RunRegistry, RunRuntime } from './run-runtime.js';
import type { SpendLedger } from './spend-ledger.js';

/** Everything a run starts from: a fresh start or a resume. */
export interface LaunchPlan {
  readonly runId: string;
  readonly tasks: readonly TaskSpec[];
  readonly progress: WorkflowProgress;
  readonly resumed: boolean;
  readonly approvals: ReadonlyMap<string, ApprovalAnswer>;
  readonly lastEventSeq: number;
  /** The checkpoint a resume continues from (the writer's base); none for a new run. */
  readonly checkpoint?: RebuiltCheckpoint;
  readonly signal: AbortSignal | undefined;
  /** Reported as `warning` events right after `workflow_start`. */
  readonly warnings?: readonly string[];
  /** The lease holder this process acquired the run's lease as (the kernel's); renewed while the run runs. */
  readonly holder: string;
  /** An asynchronous store's run record and lease: the actor starts once it resolves. */
  readonly ready?: Promise<void>;
  /** A fork's first start: reported in `workflow_start`. */
  readonly forkOf?: ForkOrigin;
  /** A fork's outer bounds when its edit changed them (default: the kernel's). */
  readonly outerBounds?: OuterBounds;
  /** The `traceparent` the previous segment saved (a resume, when traced). */
  readonly previousTraceParent?: string;
  /** The run's lease token, which every write of the run carries (ADR/0180). */
  readonly fence: RunFence;
  /** A resume that accepted a changed workflow: reported as a `workflow_changed` event after `workflow_start`. */
  readonly accepted?: { readonly changes: readonly string[]; readonly by: string };
  /**
   * A delegated run (`agentTool`): its depth below the root run, its parent's ledger, which it charges
   * too, the call that started it, and that call's span (`traceparent`), under which it is traced.
   */
  readonly delegation?: { readonly depth: number; readonly parentSpend: SpendLedger; readonly parent: RunParent; readonly traceParent: string | undefined };
}

export interface KernelInternals {
  readonly deps: KernelDeps;
  readonly registry: RunRegistry;
  readonly machine: ProvidedWorkflowMachine;
  readonly leases: LeaseKeeper;
  /** How this kernel's runs delegate (`agentTool`): given a run, what runs its agent tools' child runs. */
  readonly delegation?: (run: RunRuntime) => (call: DelegatingCall) => DelegateCall;
}
