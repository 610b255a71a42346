/**
 * A manifest's `agents:` as agent tools (docs/delegation.md, ADR/0481): each entry becomes an
 * `agentTool`, whose call runs the agent's tasks — `{{args…}}` filled from the call — as a child
 * run under the caller's bounds. The manifest's tasks get the agents `tools.agents` names; an
 * agent gets the agents its own `tools` names. What an agent does not set is the manifest's
 * (model, system, strategy, policy, guardrails; tools: the manifest's and its MCP tools, no agent),
 * except bounds, which are its own on top of its caller's. Every problem is on its manifest line.
 */
import { z } from 'zod';
import { DEFAULT_BOUNDS, resolveBounds } from '../contracts/bounds.js';
import type { Guardrail } from '../contracts/guardrails.js';
import type { Model } from '../contracts/model.js';
import type { JsonSchema } from '../contracts/turn-protocol.js';
import type { Tool, ToolSource } from '../contracts/tool.js';
import { agentTool } from '../delegation/agent-tool.js';
import { normalizeTasks, type TaskInput } from '../kernel/tasks.js';
import { declarativePolicy } from '../policy/declarative-policy.js';
import { DEFAULT_AGENT_PARAMETERS, fillArguments, withSampleArguments } from './agent-arguments.js';
import { agentReferenceIssues } from './agent-references.js';
import { configIssues, kernelIssue } from './config-issues.js';
import type { LoadedManifest } from './load-manifest.js';
import { agentMcpSource } from './manifest-mcp-source.js';
import type { Manifest } from './manifest-schema.js';
import { manifestTaskIds } from './manifest-task.js';
import { policyNameIssues } from './policy-names.js';
import { resolveModel } from './resolve-model.js';
import { settinglessBuiltins } from './resolve-tools.js';
import { withLine, type SourceIssue } from './yaml-source.js';

type AgentSpec = NonNullable<Manifest['agents']>[string];

/** The models of the agents that give their own, by name. */
export async function resolveAgentModels(loaded: LoadedManifest, environment: NodeJS.ProcessEnv): Promise<{ models: Map<string, Model>; issues: SourceIssue[] }> {
  const models = new Map<string, Model>();
  const issues: SourceIssue[] = [];
  await Promise.all(
    Object.entries(loaded.manifest.agents ?? {}).map(async ([name, agent]) => {
      if (agent.model === undefined) return;
      const resolved = await resolveModel(loaded, agent.model, ['agents', name, 'model'], environment);
      if (resolved.model !== undefined) models.set(name, resolved.model);
      issues.push(...resolved.issues);
    }),
  );
  return { models, issues };
}

/** What the agents are built from: the manifest's own parts, resolved. */
export interface AgentParts {
  /** The manifest's model; `undefined` when it has problems: then the agents are checked, not built. */
  readonly model: Model | undefined;
  /** The manifest's tools (built-in and module), and whether the module loaded (else names are not checked against them). */
  readonly tools: readonly Tool[];
  readonly complete: boolean;
  /** The manifest's guardrails, built (none when the model has problems: their names are read from the manifest). */
  readonly guardrails: readonly Guardrail[];
  readonly models: ReadonlyMap<string, Model>;
  readonly environment: NodeJS.ProcessEnv;
}

/** The agent tools the manifest's tasks may call (`tools.agents`), or every problem of the agents. */
export function manifestAgents(loaded: LoadedManifest, parts: AgentParts): { readonly tools: readonly Tool[]; readonly issues: readonly SourceIssue[] } {
  const { manifest } = loaded;
  const agents = manifest.agents ?? {};
  // What an agent may name: the manifest's tools, and the built-ins that need no settings.
  const available = [...parts.tools, ...settinglessBuiltins().filter((builtin) => !parts.tools.some((tool) => tool.name === builtin.name))];
  const toolNames = parts.complete ? available.map((tool) => tool.name) : undefined;
  const guardrailNames = (manifest.guardrails ?? []).map((guardrail) => guardrail.name);
  const issues = [
    ...agentReferenceIssues(manifest, { tools: toolNames, guardrails: guardrailNames }, loaded.source),
    ...Object.entries(agents).flatMap(([name, agent]) => agentIssues(loaded, name, agent, parts.complete ? parts.tools.map((tool) => tool.name) : undefined, guardrailNames)),
  ];
  const { model } = parts;
  if (issues.length > 0 || model === undefined) return { tools: [], issues };

  const mcp = manifest.mcp;
  const everyMcpTool: readonly ToolSource[] = mcp === undefined ? [] : [agentMcpSource(mcp, parts.environment)];
  const built = new Map<string, Tool>();
  // References are checked and acyclic: each agent's tools are built before it, once.
  const build = (name: string): Tool => {
    const done = built.get(name);
    if (done !== undefined) return done;
    const agent = agents[name]!;
    const tools = agent.tools === undefined ? [...parts.tools, ...everyMcpTool] : agentToolList(agent.tools, available, build, manifest, parts.environment);
    const tool = agentToolOf(name, agent, tools, { ...parts, model }, manifest);
    built.set(name, tool);
    return tool;
  };
  return { tools: (manifest.tools?.agents ?? []).map(build), issues: [] };
}

/** An agent's `tools:` as tools: the manifest's by name, other agents, and its MCP tools as one source. */
function agentToolList(names: readonly string[], tools: readonly Tool[], agent: (name: string) => Tool, manifest: Manifest, environment: NodeJS.ProcessEnv): (Tool | ToolSource)[] {
  const agents = manifest.agents ?? {};
  const mcp = names.filter((name) => !Object.hasOwn(agents, name) && !tools.some((tool) => tool.name === name));
  const own = names.flatMap((name) => (Object.hasOwn(agents, name) ? [agent(name)] : tools.filter((tool) => tool.name === name)));
  return mcp.length === 0 || manifest.mcp === undefined ? own : [...own, agentMcpSource(manifest.mcp, environment, mcp)];
}

function agentToolOf(name: string, agent: AgentSpec, tools: readonly (Tool | ToolSource)[], parts: AgentParts & { readonly model: Model }, manifest: Manifest): Tool {
  const parameters = (agent.parameters ?? DEFAULT_AGENT_PARAMETERS) as JsonSchema;
  const guardrails = agent.guardrails === undefined ? parts.guardrails : agent.guardrails.map((wanted) => parts.guardrails.find((guardrail) => guardrail.name === wanted)!);
  // Every field is given, even empty: one left out would be the caller's, which for an agent that
  // another agent calls is that agent's, not the manifest's.
  const tool = agentTool({
    name,
    description: agent.description,
    parameters: z.fromJSONSchema(parameters as Parameters<typeof z.fromJSONSchema>[0]),
    tasks: (args) => agent.tasks.map((task) => (typeof task === 'string' ? fillArguments(task, args) : { ...task, description: fillArguments(task.description, args) })),
    model: parts.models.get(name) ?? parts.model,
    tools,
    system: agent.system ?? manifest.system ?? '',
    strategy: agent.strategy ?? manifest.strategy ?? 'react',
    policy: declarativePolicy(agent.policy ?? manifest.policy ?? {}),
    guardrails,
    ...(agent.bounds === undefined ? {} : { bounds: agent.bounds }),
    ...(agent.timeoutMs === undefined ? {} : { timeoutMs: agent.timeoutMs }),
  });
  // The calling model sees the parameters as the manifest writes them, not as zod writes them back.
  return Object.freeze({ ...tool, jsonSchema: Object.freeze(JSON.parse(JSON.stringify(parameters)) as Record<string, unknown>) });
}

/**
 * An agent's tasks as the kernel will check them (with its bounds and guardrails), and its
 * policy's names, against its tools (`manifestTools` when it names none; `undefined`: not known).
 */
function agentIssues(loaded: LoadedManifest, name: string, agent: AgentSpec, manifestTools: readonly string[] | undefined, guardrailNames: readonly string[]): SourceIssue[] {
  const { manifest, source } = loaded;
  const at = ['agents', name];
  const bounds = resolveBounds(resolveBounds(DEFAULT_BOUNDS, manifest.bounds), agent.bounds);
  const tasks: TaskInput[] = agent.tasks.map((task) => (typeof task === 'string' ? withSampleArguments(task) : { ...task, description: withSampleArguments(task.description) }));
  const guardrails = new Set(agent.guardrails ?? guardrailNames);
  const taskIssues = configIssues(() => normalizeTasks(tasks, bounds, guardrails)).map((issue) => kernelIssue(source, `${at.join('.')}.${issue.path}`, issue.message));
  const agentTools = manifestTools === undefined ? undefined : (agent.tools ?? manifestTools);
  const owner = `agent "${name}"`;
  const policy = agent.policy === undefined ? [] : policyNameIssues(agent.policy, { at: [...at, 'policy'], owner, tools: agentTools, mcpServers: Object.keys(manifest.mcp?.servers ?? {}), taskIds: manifestTaskIds(agent.tasks).map((task) => task.id) }, source);
  return [...taskIssues, ...policy, ...inheritedAllowIssues(loaded, name, agent)];
}

/** Tools an agent names that the manifest's `allow`, which it inherits without a policy of its own, would deny at every call. */
function inheritedAllowIssues(loaded: LoadedManifest, name: string, agent: AgentSpec): SourceIssue[] {
  const allow = loaded.manifest.policy?.allow;
  if (agent.policy !== undefined || allow === undefined) return [];
  return (agent.tools ?? []).flatMap((tool, index) =>
    allow.includes(tool) ? [] : [withLine(loaded.source, ['agents', name, 'tools', index], `"${tool}" is not in the manifest's policy.allow, which this agent inherits, so every call would be denied: allow it there, or give the agent a policy of its own`)],
  );
}
