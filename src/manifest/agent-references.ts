/**
 * What a manifest's agents name (ADR/0481), checked once the tools are known: the agents
 * `tools.agents` gives the tasks, each agent's tools (manifest tools, MCP tools, other agents) and
 * guardrails, and cycles between agents — `a → b → a`, or an agent naming itself — which would
 * delegate until `maxDelegationDepth` and are refused. Each problem is on its own line. Pure.
 */
import { closestName } from './did-you-mean.js';
import type { Manifest } from './manifest-schema.js';
import { withLine, type SourceIssue, type YamlSource } from './yaml-source.js';

export interface KnownNames {
  /** The tools an agent may name (the manifest's, the built-ins that need no settings); `undefined` when the tools module did not load: then tool names are not checked. */
  readonly tools: readonly string[] | undefined;
  readonly guardrails: readonly string[];
}

export function agentReferenceIssues(manifest: Manifest, known: KnownNames, source: YamlSource): SourceIssue[] {
  const agents = manifest.agents ?? {};
  const names = Object.keys(agents);
  const servers = Object.keys(manifest.mcp?.servers ?? {});
  const isMcp = (name: string) => servers.some((server) => name.startsWith(`${server}__`));
  const issues: SourceIssue[] = [];
  const listed = names.length === 0 ? 'the manifest has no agents:' : `agents: ${names.join(', ')}`;

  (manifest.tools?.agents ?? []).forEach((name, index) => {
    if (!Object.hasOwn(agents, name)) issues.push(withLine(source, ['tools', 'agents', index], `no agent named "${name}" (${listed}${hint(name, names)})`));
  });
  for (const [name, agent] of Object.entries(agents)) {
    if (known.tools?.includes(name) === true) issues.push(withLine(source, ['agents', name], `"${name}" is both an agent and a tool: tool names must be unique`));
    (agent.tools ?? []).forEach((tool, index) => {
      if (Object.hasOwn(agents, tool) || isMcp(tool) || known.tools === undefined || known.tools.includes(tool)) return;
      const mcp = servers.length === 0 ? '' : `; MCP tools: ${servers.map((server) => `${server}__<tool>`).join(', ')}`;
      const choices = `tools: ${known.tools.length === 0 ? 'none' : known.tools.join(', ')}; ${listed}${mcp}`;
      issues.push(withLine(source, ['agents', name, 'tools', index], `no tool or agent named "${tool}" (${choices}${hint(tool, [...known.tools, ...names])})`));
    });
    (agent.guardrails ?? []).forEach((guardrail, index) => {
      if (known.guardrails.includes(guardrail)) return;
      const choices = known.guardrails.length === 0 ? 'the manifest has no guardrails:' : `guardrails: ${known.guardrails.join(', ')}`;
      issues.push(withLine(source, ['agents', name, 'guardrails', index], `no guardrail named "${guardrail}" (${choices}${hint(guardrail, known.guardrails)})`));
    });
  }
  return [...issues, ...cycleIssues(manifest, source)];
}

function hint(typed: string, known: readonly string[]): string {
  const suggestion = closestName(typed, known);
  return suggestion === undefined ? '' : `; did you mean "${suggestion}"?`;
}

/**
 * Every cycle a depth-first walk (in manifest order) closes, once each, on the `tools` entry of
 * its first agent that names the next one.
 */
function cycleIssues(manifest: Manifest, source: YamlSource): SourceIssue[] {
  const agents = manifest.agents ?? {};
  const calls = (name: string) => (agents[name]?.tools ?? []).filter((tool) => Object.hasOwn(agents, tool));
  const state = new Map<string, 'visiting' | 'done'>();
  const trail: string[] = [];
  const seen = new Set<string>();
  const issues: SourceIssue[] = [];
  const visit = (name: string) => {
    state.set(name, 'visiting');
    trail.push(name);
    for (const next of calls(name)) {
      if (state.get(next) === 'visiting') {
        const cycle = [...trail.slice(trail.indexOf(next)), next];
        const key = cycle.slice(0, -1).sort().join(' ');
        if (seen.has(key)) continue;
        seen.add(key);
        const [first, second] = cycle as [string, string];
        const index = agents[first]!.tools!.indexOf(second);
        const message = cycle.length === 2 ? `agent "${first}" names itself: an agent cannot call itself (a cycle ${first} → ${first})` : `the agents call each other in a cycle: ${cycle.join(' → ')}`;
        issues.push(withLine(source, ['agents', first, 'tools', index], message));
      } else if (state.get(next) === undefined) visit(next);
    }
    trail.pop();
    state.set(name, 'done');
  };
  for (const name of Object.keys(agents)) if (state.get(name) === undefined) visit(name);
  return issues;
}
