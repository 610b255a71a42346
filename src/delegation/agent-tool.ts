/**
 * `agentTool` (docs/delegation.md, ADR/0455): a tool whose execution is a child run — its own run
 * id, checkpoints and events in the parent's store — under the parent's bounds. The tool's result
 * is the child's final output (typed when the child's last task has an `output` schema); a child
 * that stops early is an error result naming its stop; a child that parks for approval parks the
 * parent, and a resume continues the child.
 */
import { z } from 'zod';
import { AGENT_SPEC, DELEGATE, delegatedOutput, delegatedRun, parkedOutput, type ChildRunOptions, type DelegateCall } from '../contracts/delegation.js';
import { isNaturalCompletion } from '../contracts/stop-rules.js';
import { fanOutTaskOf } from '../contracts/task-id.js';
import type { Tool, ToolExecutionContext } from '../contracts/tool.js';
import { ConfigError } from '../errors.js';
import { defineTool } from '../tools/define-tool.js';

export interface AgentToolSpec<Schema extends z.ZodType = z.ZodType> extends ChildRunOptions {
  readonly name: string;
  readonly description: string;
  readonly parameters: Schema;
  /** The child run's tasks (strings or task objects, as `kernel.start` takes), fixed or from the call's arguments. */
  readonly tasks: readonly unknown[] | ((args: z.output<Schema>) => readonly unknown[]);
  /** Per-call timeout of the tool, as for any tool; the child is cancelled when it passes. */
  readonly timeoutMs?: number;
}

/** A tool that runs a child workflow run. Throws `ConfigError` naming every bad field. */
export function agentTool<Schema extends z.ZodType>(spec: AgentToolSpec<Schema>): Tool<Schema> {
  const issues = [
    ...(typeof spec?.tasks === 'function' || (Array.isArray(spec?.tasks) && spec.tasks.length > 0) ? [] : [{ path: 'tasks', message: 'must be a non-empty list of tasks, or a function of the arguments that returns one' }]),
    ...(spec?.model !== undefined && typeof spec.model?.call !== 'function' ? [{ path: 'model', message: 'must be a Model (an object with call())' }] : []),
    ...(spec?.tools !== undefined && !Array.isArray(spec.tools) ? [{ path: 'tools', message: 'must be a list of tools' }] : []),
    ...(spec?.system !== undefined && typeof spec.system !== 'string' ? [{ path: 'system', message: 'must be a string' }] : []),
  ];
  if (issues.length > 0) throw new ConfigError({ message: `Invalid agent tool "${String(spec?.name)}"`, issues });
  const options: ChildRunOptions = {
    ...(spec.model === undefined ? {} : { model: spec.model }),
    ...(spec.tools === undefined ? {} : { tools: spec.tools }),
    ...(spec.system === undefined ? {} : { system: spec.system }),
    ...(spec.bounds === undefined ? {} : { bounds: spec.bounds }),
    ...(spec.strategy === undefined ? {} : { strategy: spec.strategy }),
    ...(spec.policy === undefined ? {} : { policy: spec.policy }),
    ...(spec.guardrails === undefined ? {} : { guardrails: spec.guardrails }),
  };
  const tool = defineTool({
    name: spec.name,
    description: spec.description,
    parameters: spec.parameters,
    ...(spec.timeoutMs === undefined ? {} : { timeoutMs: spec.timeoutMs }),
    execute: async (args, context) => {
      const delegate = (context as ToolExecutionContext & { readonly [DELEGATE]?: DelegateCall })[DELEGATE];
      if (delegate === undefined) throw new Error(`agent tool "${spec.name}" runs only inside a dualloop kernel run`);
      const tasks = typeof spec.tasks === 'function' ? spec.tasks(args) : spec.tasks;
      const outcome = await delegate({ options, tasks });
      if (outcome.kind === 'refused') throw new Error(`${outcome.code}: ${outcome.message}`);
      if (outcome.kind === 'parked') return parkedOutput(outcome);
      const { result } = outcome;
      const spent = delegatedRun(outcome.runId, result);
      if (!isNaturalCompletion(result.stop.reason)) return delegatedOutput(`child run ${outcome.runId} stopped ${result.stop.reason}: ${result.stop.detail}`, true, spent);
      return delegatedOutput(lastTaskOutput(result.tasks) ?? '', false, spent);
    },
  });
  return Object.freeze({ ...tool, [AGENT_SPEC]: options });
}

/** The output of the child's last task in its own order (a fan-out's items count through their task). */
function lastTaskOutput(tasks: readonly { readonly taskId: string; readonly index: number; readonly output: unknown }[]): unknown {
  let last: { readonly index: number; readonly output: unknown } | undefined;
  for (const task of tasks) {
    if (fanOutTaskOf(task.taskId) !== undefined) continue;
    if (last === undefined || task.index >= last.index) last = task;
  }
  return last?.output;
}
