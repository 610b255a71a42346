/**
 * Delegation (`agentTool`, docs/delegation.md): a tool whose execution is a child run of the
 * kernel that runs the tool. The kernel hands each call of such a tool a `DelegateCall` under the
 * `DELEGATE` key of its execution context; the tool asks it to run (or continue) the child run and
 * gets back how it ended. Outside a kernel there is none.
 */
import type { BoundsOverride } from './bounds.js';
import type { Model } from './model.js';
import type { Guardrail } from './guardrails.js';
import type { PolicyGate } from './policy.js';
import type { WorkflowResult } from './results.js';
import type { Usage } from './usage.js';
import type { Tool, ToolSource } from './tool.js';

export const DELEGATE = Symbol.for('dualloop.delegate');
/** Marks a tool made by `agentTool`, with the options of its child runs. */
export const AGENT_SPEC = Symbol.for('dualloop.agentSpec');

/** What a child run is made of, besides its tasks: unset fields are the parent kernel's. */
export interface ChildRunOptions {
  readonly model?: Model;
  readonly tools?: readonly (Tool | ToolSource)[];
  readonly system?: string;
  readonly bounds?: BoundsOverride;
  readonly strategy?: 'react' | 'plan_execute' | 'hybrid' | 'auto';
  readonly policy?: PolicyGate;
  /** The child's guardrails (docs/guardrails.md); by default the parent kernel's. */
  readonly guardrails?: readonly Guardrail[];
}

/** How a child run ended, as its agent tool learns it. */
export type DelegatedOutcome =
  /** The child ended (any stop but a parked approval): its result. */
  | { readonly kind: 'ended'; readonly runId: string; readonly result: WorkflowResult }
  /** The child parked for approval: the parent parks too; its approval ids answer it. */
  | { readonly kind: 'parked'; readonly runId: string; readonly approvalIds: readonly string[]; readonly detail: string }
  /** The child could not run: too deep, or no room left under the parent's bounds. */
  | { readonly kind: 'refused'; readonly code: 'delegation_too_deep' | 'delegation_no_room'; readonly message: string };

export type DelegateCall = (request: { readonly options: ChildRunOptions; readonly tasks: readonly unknown[] }) => Promise<DelegatedOutcome>;

const PARKED = Symbol.for('dualloop.parked');

/** What an agent tool returns when its child parked: the call is not recorded, and the parent parks. */
export interface ParkedOutput {
  readonly [PARKED]: true;
  readonly runId: string;
  readonly approvalIds: readonly string[];
  readonly detail: string;
}

export function parkedOutput(outcome: Extract<DelegatedOutcome, { kind: 'parked' }>): ParkedOutput {
  return { [PARKED]: true, runId: outcome.runId, approvalIds: outcome.approvalIds, detail: outcome.detail };
}

export function isParkedOutput(value: unknown): value is ParkedOutput {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[PARKED] === true;
}

export function isAgentTool(tool: unknown): boolean {
  return typeof tool === 'object' && tool !== null && AGENT_SPEC in tool;
}

/** What a child run spent: it counts as its parent task's (turns aside: they are the child's own). */
export interface DelegatedRun {
  readonly runId: string;
  readonly toolCalls: number;
  readonly usage: Usage;
  readonly costUsd: number;
}

const DELEGATED = Symbol.for('dualloop.delegated');

/** An agent tool's outcome: the value the model sees (an error when the child stopped early) and what the child spent. */
export interface DelegatedOutput {
  readonly [DELEGATED]: true;
  readonly value: unknown;
  readonly isError: boolean;
  readonly run: DelegatedRun;
}

export function delegatedOutput(value: unknown, isError: boolean, run: DelegatedRun): DelegatedOutput {
  return { [DELEGATED]: true, value, isError, run };
}

export function isDelegatedOutput(value: unknown): value is DelegatedOutput {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[DELEGATED] === true;
}

/** What a child's result says it spent. */
export function delegatedRun(runId: string, result: WorkflowResult): DelegatedRun {
  const { metrics } = result;
  return { runId, toolCalls: metrics.toolCalls, usage: { inputTokens: metrics.inputTokens, outputTokens: metrics.outputTokens }, costUsd: metrics.costUsd };
}
