/**
 * Edited arguments (`{ decision: 'approve', args }`) checked against the schema of the tool whose
 * call is waiting, before anything runs (ADR/0470). The tool is found from the pending approval:
 * the run's own tools, or under each agent tool on the way down, its child's (the agent's `tools`,
 * else the parent's, as the child kernel gets them).
 */
import { AGENT_SPEC, type ChildRunOptions } from '../contracts/delegation.js';
import type { ApprovalAnswer } from '../contracts/policy.js';
import { isToolSource, type Tool, type ToolSource } from '../contracts/tool.js';
import type { ConfigIssue } from '../errors.js';
import { editedArgs } from './approval-answer.js';
import type { PendingApproval } from './pending-approvals.js';

type ToolList = readonly (Tool | ToolSource)[];

/** The tool a pending approval's call is of, when the list names it (a tool source's tools are known only to a running run). */
export function approvalTool(pending: PendingApproval, tools: ToolList): Tool | undefined {
  let list = tools;
  for (const agent of pending.via) {
    const agentTool = toolNamed(list, agent);
    const spec = agentTool === undefined ? undefined : (agentTool as unknown as Partial<Record<symbol, ChildRunOptions>>)[AGENT_SPEC];
    if (spec === undefined) return undefined;
    list = spec.tools ?? list;
  }
  return pending.toolName === undefined ? undefined : toolNamed(list, pending.toolName);
}

/**
 * What is wrong with an answer's edit (`at` is where the answer is: `approvals.call-1`): arguments
 * the tool's schema refuses, each field named under `<at>.args`; arguments for a task's approval.
 * An edit for an approval not pending yet, or of a tool not in `tools`, is checked when its call runs.
 */
export function editIssues(approvalId: string, answer: ApprovalAnswer, pending: readonly PendingApproval[], tools: ToolList, at: string): ConfigIssue[] {
  const edit = editedArgs(answer);
  if (edit === undefined) return [];
  const approval = pending.find((candidate) => candidate.approvalId === approvalId);
  if (approval?.subject === 'task' || (approval === undefined && approvalId.startsWith('task:'))) return [{ path: `${at}.args`, message: "a task's approval takes no arguments" }];
  const tool = approval === undefined ? undefined : approvalTool(approval, tools);
  return tool === undefined ? [] : argumentIssues(tool, edit.args, `${at}.args`);
}

/** The tool's schema on edited arguments: one issue per refused field. */
export function argumentIssues(tool: Tool, args: unknown, path: string): ConfigIssue[] {
  const parsed = tool.parameters.safeParse(args);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => ({ path: [path, ...issue.path.map(String)].join('.'), message: `${issue.message} (tool "${tool.name}")` }));
}

function toolNamed(list: ToolList, name: string): Tool | undefined {
  return list.find((tool): tool is Tool => !isToolSource(tool) && tool.name === name);
}
