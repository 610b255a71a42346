/**
 * The prompts of the plan strategies: what the planner is asked (plan, replan, review) and what
 * the executor sees for one step. Plain functions of the plan state, so that a replay builds the
 * same messages.
 */
import { outputText } from '../contracts/output-text.js';
import type { Message } from '../contracts/messages.js';
import type { ToolDescriptor } from '../contracts/model.js';
import type { TaskResult } from '../contracts/results.js';
import type { PlanStep, StepLimits } from './plan-parser.js';
import type { PlanProgress, StepRecord } from './plan-state.js';

const FORMAT =
  'Answer with JSON only, in a ```json fenced block: {"steps": ["first step", "second step", ...]}. ' +
  'Each step is one self-contained piece of work an agent with the tools below can carry out and report on.';

function countText(limits: StepLimits): string {
  if (limits.max === Number.POSITIVE_INFINITY) return 'as few steps as the goal needs';
  return `${limits.min} to ${limits.max} steps`;
}

function toolList(tools: readonly ToolDescriptor[]): string {
  return tools.length === 0 ? 'Tools: none.' : `Tools:\n${tools.map((tool) => `- ${tool.name}: ${tool.description}`).join('\n')}`;
}

function doneList(done: readonly StepRecord[]): string {
  if (done.length === 0) return 'Done so far: nothing yet.';
  return `Done so far:\n${done.map((step, index) => `${index + 1}. ${step.description} [${step.reason}] ${step.summary}`).join('\n')}`;
}

function stepList(steps: readonly PlanStep[]): string {
  return steps.length === 0 ? '(none)' : steps.map((step, index) => `${index + 1}. ${step.description}`).join('\n');
}

export function planMessages(goal: string, tools: readonly ToolDescriptor[], limits: StepLimits): Message[] {
  return [
    { role: 'system', content: `You are the planner of an agent. Turn the goal into an ordered plan of ${countText(limits)}. ${FORMAT}` },
    { role: 'user', content: `Goal:\n${goal}\n\n${toolList(tools)}` },
  ];
}

export function replanMessages(options: {
  readonly goal: string;
  readonly tools: readonly ToolDescriptor[];
  readonly limits: StepLimits;
  readonly plan: PlanProgress;
  readonly failed: TaskResult;
  readonly maxReplans: number;
}): Message[] {
  const { plan, failed } = options;
  const later = plan.steps.slice(plan.cursor + 1);
  return [
    {
      role: 'system',
      content: `You are the planner of an agent. A step of your plan failed. Write a new plan of ${countText(options.limits)} for the rest of the work: do not repeat steps that are done. ${FORMAT}`,
    },
    {
      role: 'user',
      content: [
        `Goal:\n${options.goal}`,
        doneList(plan.done),
        `Failed step: ${failed.description}\nIt stopped with ${failed.stop.reason}: ${failed.stop.detail}${outputText(failed.output) === '' ? '' : `\nIts last output: ${excerpt(outputText(failed.output))}`}`,
        `Steps that were still to come:\n${stepList(later)}`,
        `This is replan ${plan.replansUsed + 1} of at most ${options.maxReplans}.`,
        toolList(options.tools),
      ].join('\n\n'),
    },
  ];
}

export function reviewMessages(options: { readonly goal: string; readonly plan: PlanProgress; readonly limits: StepLimits }): Message[] {
  const { plan } = options;
  return [
    {
      role: 'system',
      content:
        'You are the planner of an agent. A step of your plan is done. Summarize the progress in one or two sentences and decide whether the remaining steps still fit. ' +
        'Answer with JSON only, in a ```json fenced block: {"summary": "...", "keep": true} to keep them, or ' +
        `{"summary": "...", "steps": [...], "reason": "..."} to replace them (at most ${options.limits.max} steps; an empty list when the goal is reached).`,
    },
    { role: 'user', content: [`Goal:\n${options.goal}`, doneList(plan.done), `Remaining steps:\n${stepList(plan.steps.slice(plan.cursor))}`].join('\n\n') },
  ];
}

/** What the executor sees for a plan_execute step: the goal, what is done, and this step only. */
export function focusedStepPrompt(goal: string, plan: PlanProgress): string {
  const step = plan.steps[plan.cursor]!;
  return [
    `You are carrying out one step of a plan towards this goal:\n${goal}`,
    doneList(plan.done),
    `Your step (${plan.cursor + 1} of ${plan.steps.length}${plan.version > 1 ? `, plan revision ${plan.version}` : ''}): ${step.description}`,
    'Carry out this step only, then answer with its result.',
  ].join('\n\n');
}

/** What the executor sees for a hybrid step: the whole plan, the progress summaries, this step. */
export function contextualStepPrompt(goal: string, plan: PlanProgress): string {
  const marked = plan.steps.map((step, index) => `${index + 1}. ${index === plan.cursor ? '[now] ' : ''}${step.description}`).join('\n');
  return [
    `Goal:\n${goal}`,
    doneList(plan.done),
    `Plan${plan.version > 1 ? ` (revision ${plan.version})` : ''}:\n${marked}`,
    `Work on step ${plan.cursor + 1} until it is done, using the tools as you need, then answer with what you did and found.`,
  ].join('\n\n');
}

/** A step's progress summary when the planner gave none: its stop and the start of its output. */
export function mechanicalSummary(result: TaskResult): string {
  const output = outputText(result.output).trim();
  return output === '' ? `(stopped: ${result.stop.detail})` : excerpt(output);
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}
