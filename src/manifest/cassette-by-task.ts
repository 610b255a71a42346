/**
 * A cassette by task (docs/manifest.md, ADR/0430): answers keyed by task id, each task's played
 * in its own call order, so that a graph whose tasks call at once in any order replays the same
 * way every time. The n-th turn of a task plays its n-th step (turns are counted per task and
 * kept by checkpoints, so a resume or a fork at a turn picks up the right step); a wrap-up call
 * (`wrapUpOnBound`) plays the step after its last turn's. A fan-out item (`review[2]`) plays the
 * list of its own key when there is one, else its task's list from the start.
 */
import type { ScriptCall, ScriptStep } from '../testing/scripted-model.js';
import { fanOutTaskOf } from '../contracts/task-id.js';
import { closestName } from './did-you-mean.js';
import { withLine, type SourceIssue, type YamlSource } from './yaml-source.js';

type StepsByTask = Readonly<Record<string, readonly ScriptStep[]>>;

/** What the keys of a cassette by task are checked against: the manifest's task ids. */
export interface CassetteTask {
  readonly id: string;
  /** Whether the task fans out, so that `<id>[<n>]` names one of its items. */
  readonly forEach: boolean;
}

/** The script function that answers each call from its task's steps. */
export function scriptByTask(byTask: StepsByTask): (call: ScriptCall) => ScriptStep {
  return (call) => {
    if (call.taskId === undefined || call.turn === undefined) {
      return failure('a cassette by task answers task calls only; this call (a plan strategy’s planner) needs a planner: block with a cassette in call order');
    }
    const key = stepsKey(byTask, call.taskId);
    if (key === undefined) return failure(`the cassette has no answers for task "${call.taskId}"`);
    const steps = byTask[key]!;
    const position = call.turn - 1 + (isWrapUp(call) ? 1 : 0);
    const step = steps[position];
    if (step === undefined) return failure(`the cassette has ${steps.length} answer${steps.length === 1 ? '' : 's'} for "${key}", none for call ${position + 1} of task "${call.taskId}"`);
    return withToolCallIds(step, call.taskId, call.turn);
  };
}

/** The key whose steps a task (or fan-out item) plays: its own, else its fan-out task's. */
function stepsKey(byTask: StepsByTask, taskId: string): string | undefined {
  if (Object.hasOwn(byTask, taskId)) return taskId;
  const owner = fanOutTaskOf(taskId);
  return owner !== undefined && Object.hasOwn(byTask, owner) ? owner : undefined;
}

/** The wrap-up call asks for a last answer with a message of its own after the task's last answer. */
function isWrapUp(call: ScriptCall): boolean {
  const lastAnswer = call.messages.findLastIndex((message) => message.role === 'assistant');
  return call.messages.slice(lastAnswer + 1).some((message) => message.role === 'user' && message.source === 'wrap_up');
}

/**
 * Tool-call ids the step leaves out are made from the task and turn, not from the run's call
 * index (which depends on how parallel tasks interleave): the same call gets the same id on every
 * replay, so recorded tool results are found on resume.
 */
function withToolCallIds(step: ScriptStep, taskId: string, turn: number): ScriptStep {
  if (step.toolCalls === undefined || step.toolCalls.every((call) => call.id !== undefined)) return step;
  const prefix = `call_${taskId.replace(/[^A-Za-z0-9_-]/g, '_')}_${turn}`;
  return { ...step, toolCalls: step.toolCalls.map((call, position) => ({ ...call, id: call.id ?? `${prefix}_${position}` })) };
}

function failure(message: string): ScriptStep {
  return { error: { code: 'script_exhausted', message: `script exhausted: ${message}` } };
}

/**
 * Keys that name no task of the manifest, each on its cassette line: a typo would otherwise
 * leave a task without answers. An item key (`review[2]`) must name a task with `forEach`.
 */
export function cassetteKeyIssues(keys: readonly string[], tasks: readonly CassetteTask[], source: YamlSource): SourceIssue[] {
  const ids = tasks.map((task) => task.id);
  return keys.flatMap((key) => {
    if (ids.includes(key)) return [];
    const named = fanOutTaskOf(key) ?? key;
    const owner = tasks.find((task) => task.id === named);
    if (owner !== undefined) return owner.forEach ? [] : [withLine(source, [key], `task "${owner.id}" has no forEach, so it has no item ${key}`)];
    const suggestion = closestName(named, ids);
    const hint = suggestion === undefined ? `the manifest's tasks are ${ids.map((id) => `"${id}"`).join(', ')}` : `did you mean "${suggestion}"?`;
    return [withLine(source, [key], `no task "${named}" in the manifest (${hint})`)];
  });
}
