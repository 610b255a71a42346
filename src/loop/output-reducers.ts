/**
 * Typed task outputs in the turn machine (docs/api.md, "Typed outputs"). The model caller checks
 * each answer without tool calls against the task's schema (MODEL_DONE.output); the stop evaluator
 * decides whether the task stops (`planner_stopped` on a match, `invalid_output` once the repairs
 * are used up) or sends the answer back (STOP_DECIDED.repair). These reducers apply that when the
 * turn closes. Pure, like turn-reducers.ts.
 */
import type { KernelEventBody } from '../contracts/events.js';
import type { Message } from '../contracts/messages.js';
import type { StopCondition } from '../contracts/stop.js';
import type { OutputCheck, OutputIssue } from '../contracts/typed-output.js';
import type { OutputRepair, TurnContext } from '../contracts/turn-protocol.js';
import type { GuardrailTrip } from '../contracts/guardrails.js';
import { revisePrompt } from './guardrail-reducers.js';

interface Settled {
  readonly update: Partial<Pick<TurnContext, 'messages' | 'output'>>;
  /** The `output_invalid` event to report, when the answer did not match. */
  readonly report?: KernelEventBody;
}

/**
 * CHECK_STOP decided, the turn closes: an answer that matched becomes the task's output when the
 * task stops with it; one that did not goes back to the model (a repair) or is reported with the stop.
 */
export function settleOutput(context: TurnContext, stop: StopCondition | undefined, repair: OutputRepair | undefined): Settled {
  const check = context.current.output;
  const trip = context.current.guardrail;
  // An output guardrail in `revise` mode tripped and the task goes on: the reason goes back to the model.
  if (trip !== undefined) return stop === undefined && repair !== undefined ? { update: revision(context, trip, repair) } : { update: {} };
  if (check === undefined) return { update: {} };
  if (check.ok) return stop === undefined ? { update: {} } : { update: { output: { ...context.output, matched: { value: check.value } } } };
  if (stop !== undefined || repair === undefined) return { update: {}, report: invalidReport(context, check.issues, 'stopped', false) };
  const message: Message = { role: 'user', content: repairPrompt(check.issues, repair), source: 'output_repair' };
  const output = { ...context.output, repairs: repair.number };
  return {
    update: { messages: [...context.messages, message], output },
    report: invalidReport({ ...context, output }, check.issues, 'repair', false),
  };
}

function revision(context: TurnContext, trip: GuardrailTrip, repair: OutputRepair): Settled['update'] {
  const message: Message = { role: 'user', content: revisePrompt(trip, repair), source: 'output_repair' };
  return { messages: [...context.messages, message], output: { ...context.output, repairs: repair.number } };
}

/** WRAP_UP answered: a typed answer that matched becomes the task's output; one that did not is reported. */
export function settleWrapUpOutput(context: TurnContext, check: OutputCheck | undefined, trip?: GuardrailTrip): Settled {
  if (check === undefined || trip !== undefined) return { update: {} };
  if (check.ok) return { update: { output: { ...context.output, matched: { value: check.value } } } };
  return { update: {}, report: invalidReport(context, check.issues, 'stopped', true) };
}

function invalidReport(context: TurnContext, issues: readonly OutputIssue[], outcome: 'repair' | 'stopped', wrapUp: boolean): KernelEventBody {
  return { type: 'output_invalid', taskId: context.task.id, taskIndex: context.task.index, turn: context.current.turn, issues, outcome, repairs: context.output.repairs, wrapUp };
}

/** The repair message: the issues, one per line, and what to send instead. */
export function repairPrompt(issues: readonly OutputIssue[], repair: OutputRepair): string {
  const lines = issues.map((issue) => `- ${issue.path}: ${issue.message}`);
  return [
    `Your final answer does not match the required output schema (repair ${repair.number} of ${repair.of}):`,
    ...lines,
    'Reply with only the corrected JSON value, with no other text.',
  ].join('\n');
}
