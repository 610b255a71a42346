import type { CommandIO } from '../command-io.js';
import { EXIT } from '../exit-codes.js';
import { prepareManifest } from '../prepare-manifest.js';
import { reportIssues } from '../report-issues.js';
import { displayPath } from '../../manifest/load-manifest.js';
import { plural } from '../format.js';

/**
 * `dualloop validate <manifest>`: every check `run` makes before it touches a store — YAML,
 * schema, cassette, tools module, built-in tool directories, policy names, agents, kernel options —
 * with every problem reported at once as `path (line N): message`. Exit 0 or 64.
 */
export async function validateCommand(manifestPath: string, io: CommandIO): Promise<number> {
  const prepared = await prepareManifest(manifestPath, {}, io.cwd);
  if (!prepared.ok) {
    reportIssues(io.stderr, prepared.issues);
    return EXIT.usage;
  }
  const { loaded, options } = prepared.value;
  const model = loaded.manifest.model;
  const strategy = loaded.manifest.strategy === undefined ? '' : `, strategy ${loaded.manifest.strategy}`;
  const agents = Object.keys(loaded.manifest.agents ?? {});
  const called = loaded.manifest.tools?.agents ?? [];
  const tools = (options.tools ?? []).map((tool) => (called.includes(tool.name) ? `${tool.name} (agent)` : tool.name));
  const others = agents.filter((agent) => !called.includes(agent));
  io.stdout.write(
    `${displayPath(loaded.path, io.cwd)}: valid — "${loaded.manifest.name}", ${plural(loaded.manifest.tasks?.length ?? 0, 'task')}, ` +
      `model ${model.provider === 'openai' ? `openai ${model.name}` : model.provider === 'ai-sdk' ? `ai-sdk ${options.model.provider} ${options.model.modelId}` : `scripted (${model.script})`}, ` +
      `tools: ${tools.length === 0 ? 'none' : tools.join(', ')}${others.length === 0 ? '' : `, agents that agents call: ${others.join(', ')}`}${mcpServers(loaded.manifest)}${strategy}\n`,
  );
  return EXIT.completed;
}

/** MCP servers are not started by `validate`: their tools are listed by server. */
function mcpServers(manifest: { readonly mcp?: { readonly servers: Readonly<Record<string, unknown>> } }): string {
  const names = Object.keys(manifest.mcp?.servers ?? {});
  return names.length === 0 ? '' : `, MCP servers (started by run): ${names.join(', ')}`;
}
