import { z } from 'zod';
import type { PolicyGate, PolicyVerdict } from '../contracts/policy.js';
import { ConfigError } from '../errors.js';
import { zodIssues } from '../contracts/zod-issues.js';
import { lazySchema, type SchemaOf } from '../contracts/lazy-schema.js';

const toolName = lazySchema(() => z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be a tool name (1–64 letters, digits, "_" or "-")'));

/**
 * A policy written as data: tool lists and spending gates. The same schema validates the
 * `policy` block of a manifest and the argument of `declarativePolicy()`.
 */
export const DeclarativePolicySpecSchema = lazySchema(() => z.strictObject({
  allow: z.array(toolName()).optional().describe('Only these tools may run; a call to any other tool is denied.'),
  deny: z.array(toolName()).optional().describe('These tools never run; a call is denied.'),
  requireApproval: z
    .array(toolName())
    .optional()
    .describe('A call to one of these tools parks the run (awaiting_approval) until `dualloop resume --approve <id>` answers it.'),
  approveTasks: z
    .array(z.string().min(1))
    .optional()
    .describe('Ids of tasks that need an approval before they start (approval id `task:<id>`).'),
  maxCostUsd: z.number().positive().optional().describe('Once the run has spent this much (USD), no further task or tool call is allowed.'),
  maxTokens: z.number().int().positive().optional().describe('Once the run has used this many tokens (input + output), no further task or tool call is allowed.'),
  haltOnDeny: z
    .boolean()
    .optional()
    .describe('A denied tool call also stops the task `policy_denied` (default true); false feeds the refusal back to the model and goes on.'),
}));
export type DeclarativePolicySpec = z.input<SchemaOf<typeof DeclarativePolicySpecSchema>>;

/**
 * A `PolicyGate` from a declarative spec. Checks run in a fixed order, first match wins:
 * tool calls — `deny` list, not in `allow` list, cost gate, token gate, `requireApproval` list;
 * tasks — cost gate, token gate, `approveTasks`. Throws ConfigError for an invalid spec.
 */
export function declarativePolicy(spec: DeclarativePolicySpec): PolicyGate {
  const parsed = DeclarativePolicySpecSchema().safeParse(spec);
  if (!parsed.success) throw new ConfigError({ message: 'Invalid declarative policy', issues: zodIssues(parsed.error) });
  const { allow, deny, requireApproval, approveTasks, maxCostUsd, maxTokens } = parsed.data;
  const allowed = allow === undefined ? undefined : new Set(allow);
  const denied = new Set(deny ?? []);
  const needsApproval = new Set(requireApproval ?? []);
  const tasksNeedingApproval = new Set(approveTasks ?? []);
  const halt = parsed.data.haltOnDeny ?? true;

  const spendingGate = (tokens: number, costUsd: number): string | undefined => {
    if (maxCostUsd !== undefined && costUsd >= maxCostUsd) return `policy cost gate: ${formatUsd(costUsd)} spent, limit ${formatUsd(maxCostUsd)}`;
    if (maxTokens !== undefined && tokens >= maxTokens) return `policy token gate: ${tokens} tokens used, limit ${maxTokens}`;
    return undefined;
  };

  return {
    checkToolCall({ name, spent }): PolicyVerdict {
      if (denied.has(name)) return { decision: 'deny', reason: `tool "${name}" is on the policy's deny list`, halt };
      if (allowed !== undefined && !allowed.has(name)) return { decision: 'deny', reason: `tool "${name}" is not on the policy's allow list`, halt };
      const gate = spendingGate(spent.tokens, spent.costUsd);
      if (gate !== undefined) return { decision: 'deny', reason: gate, halt };
      if (needsApproval.has(name)) return { decision: 'require_approval', reason: `tool "${name}" requires approval` };
      return { decision: 'allow' };
    },
    checkTask({ task, metrics }): PolicyVerdict {
      const gate = spendingGate(metrics.inputTokens + metrics.outputTokens, metrics.costUsd);
      if (gate !== undefined) return { decision: 'deny', reason: gate };
      if (tasksNeedingApproval.has(task.id)) return { decision: 'require_approval', reason: `task "${task.id}" requires approval` };
      return { decision: 'allow' };
    },
  };
}

function formatUsd(value: number): string {
  return `$${value.toFixed(value < 1 ? 4 : 2)}`;
}
