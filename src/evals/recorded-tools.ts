/**
 * Tools answered from a recording (docs/evals.md, "Tool modes"). The baseline run's tool calls,
 * in the order they were made, are the recording; a candidate call whose name and arguments (as
 * canonical JSON: key order aside) match the next unused recorded call of that name and arguments
 * gets that call's result — or its error, thrown again. An unmatched call is an error result
 * saying so (`recorded`) or runs the tool (`recorded-or-live`). Tool sources (MCP) stay live: their
 * tools exist only once a run opens them.
 */
import type { EvalToolMode } from '../contracts/evals.js';
import type { WorkflowResult } from '../contracts/results.js';
import { isToolSource, type Tool, type ToolSource } from '../contracts/tool.js';
import { canonicalJson } from '../loop/tool-call-key.js';

interface Recorded {
  readonly result: unknown;
  readonly isError: boolean;
  used: boolean;
}

/** The baseline's calls by `name + canonical arguments`, each list in call order. */
export function recordingOf(baseline: WorkflowResult | undefined): Map<string, Recorded[]> {
  const recording = new Map<string, Recorded[]>();
  for (const task of baseline?.tasks ?? []) {
    for (const turn of task.turns) {
      for (const call of turn.toolCalls) {
        const key = callKey(call.name, call.args);
        const list = recording.get(key) ?? [];
        list.push({ result: call.result, isError: call.isError, used: false });
        recording.set(key, list);
      }
    }
  }
  return recording;
}

/** The candidate's tools for one case: wrapped to answer from `recording`, unless the mode is `live`. */
export function toolsForCase(tools: readonly (Tool | ToolSource)[], mode: EvalToolMode, recording: Map<string, Recorded[]>): (Tool | ToolSource)[] {
  if (mode === 'live') return [...tools];
  return tools.map((tool) => (isToolSource(tool) ? tool : recordedTool(tool, mode, recording)));
}

function recordedTool(tool: Tool, mode: EvalToolMode, recording: Map<string, Recorded[]>): Tool {
  return {
    ...tool,
    execute: (args, context) => {
      const hit = recording.get(callKey(tool.name, args))?.find((call) => !call.used);
      if (hit !== undefined) {
        hit.used = true;
        if (hit.isError) throw new Error(typeof hit.result === 'string' ? hit.result : canonicalJson(hit.result));
        return hit.result;
      }
      if (mode === 'recorded-or-live') return tool.execute(args, context);
      throw new Error(`no recorded call of "${tool.name}" with these arguments is left in the baseline run (tools: recorded); arguments: ${canonicalJson(args).slice(0, 500)}`);
    },
  };
}

function callKey(name: string, args: unknown): string {
  return `${name}\u0000${canonicalJson(args)}`;
}
