/**
 * The names a declarative policy gives (docs/manifest.md, "Policy"): tools in `allow`, `deny` and
 * `requireApproval`, task ids in `approveTasks`. A name nothing has is a typo that would make a
 * rule silently useless, so each one is a problem on its line — for the manifest's policy and for
 * each agent's (ADR/0481).
 */
import type { DeclarativePolicySpec } from '../policy/declarative-policy.js';
import { withLine, type SourceIssue, type YamlSource } from './yaml-source.js';

export interface PolicyNames {
  /** Where the policy is: `['policy']`, or `['agents', name, 'policy']`. */
  readonly at: readonly PropertyKey[];
  /** What has the tools, in messages: "the manifest", "agent \"researcher\"". */
  readonly owner: string;
  /** The tool names the policy may give; `undefined` when they are not known (the tools module did not load): then they are not checked. */
  readonly tools: readonly string[] | undefined;
  /** MCP servers: their tools are known only once they run, so a name with a server's prefix passes. */
  readonly mcpServers: readonly string[];
  readonly taskIds: readonly string[];
}

export function policyNameIssues(policy: DeclarativePolicySpec | undefined, names: PolicyNames, source: YamlSource): SourceIssue[] {
  if (policy === undefined) return [];
  const issues: SourceIssue[] = [];
  const { tools } = names;
  if (tools !== undefined) {
    const known = tools.length === 0 ? `${names.owner} has no tools` : `tools: ${tools.join(', ')}`;
    const prefixes = names.mcpServers.map((server) => `${server}__`);
    for (const list of ['allow', 'deny', 'requireApproval'] as const) {
      (policy[list] ?? []).forEach((name, index) => {
        if (!tools.includes(name) && !prefixes.some((prefix) => name.startsWith(prefix))) issues.push(withLine(source, [...names.at, list, index], `no tool named "${name}" (${known})`));
      });
    }
  }
  (policy.approveTasks ?? []).forEach((id, index) => {
    if (!names.taskIds.includes(id)) issues.push(withLine(source, [...names.at, 'approveTasks', index], `no task with id "${id}" (tasks: ${names.taskIds.join(', ')})`));
  });
  return issues;
}
