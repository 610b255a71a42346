import { z } from 'zod';
import { isToolSource, type Tool, type ToolDefinition, type ToolSource } from '../contracts/tool.js';
import { ConfigError, type ConfigIssue } from '../errors.js';

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Declares a tool: validates its definition once and computes the JSON Schema the model sees
 * (`z.toJSONSchema` of `parameters`, as input). Throws `ConfigError` naming every bad field.
 */
export function defineTool<Schema extends z.ZodType>(definition: ToolDefinition<Schema>): Tool<Schema> {
  const issues = toolDefinitionIssues(definition, '');
  if (issues.length > 0) throw new ConfigError({ message: `Invalid tool "${String(definition?.name)}"`, issues });
  const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(definition.parameters, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return Object.freeze({ ...definition, jsonSchema: Object.freeze(jsonSchema) });
}

export function toolDefinitionIssues(definition: ToolDefinition | undefined, prefix: string): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const at = (field: string) => (prefix === '' ? field : `${prefix}.${field}`);
  if (typeof definition !== 'object' || definition === null) return [{ path: prefix, message: 'must be a tool object' }];
  if (typeof definition.name !== 'string' || !TOOL_NAME.test(definition.name)) {
    issues.push({ path: at('name'), message: 'must be 1–64 letters, digits, "_" or "-"' });
  }
  if (typeof definition.description !== 'string' || definition.description.trim() === '') {
    issues.push({ path: at('description'), message: 'must be a non-empty string' });
  }
  if (!(definition.parameters instanceof z.ZodObject)) {
    issues.push({ path: at('parameters'), message: 'must be a zod object schema (z.object({...}))' });
  }
  if (typeof definition.execute !== 'function') issues.push({ path: at('execute'), message: 'must be a function' });
  if (definition.timeoutMs !== undefined && !(Number.isInteger(definition.timeoutMs) && definition.timeoutMs > 0)) {
    issues.push({ path: at('timeoutMs'), message: 'must be a positive integer (milliseconds)' });
  }
  if (definition.version !== undefined && (typeof definition.version !== 'string' || definition.version.trim() === '')) {
    issues.push({ path: at('version'), message: 'must be a non-empty string' });
  }
  if (definition.executionMode !== undefined && definition.executionMode !== 'sequential' && definition.executionMode !== 'parallel') {
    issues.push({ path: at('executionMode'), message: 'must be "sequential" or "parallel"' });
  }
  return issues;
}

/**
 * Validates a list of tools given as an option: each made with `defineTool`, names unique.
 * Returns the valid ones by name and an issue for every bad one. With `sources`, tool sources
 * (`mcpTools(...)`) are accepted too and returned apart, in order; without, each is an issue.
 */
export function toolListIssues(
  tools: readonly (Tool | ToolSource)[],
  accepts: { readonly sources?: boolean } = {},
): { readonly tools: Map<string, Tool>; readonly sources: ToolSource[]; readonly issues: ConfigIssue[] } {
  const byName = new Map<string, Tool>();
  const sources: ToolSource[] = [];
  const issues: ConfigIssue[] = [];
  tools.forEach((tool, index) => {
    if (isToolSource(tool)) {
      if (accepts.sources !== true) issues.push({ path: `tools.${index}`, message: 'tool sources (mcpTools) are not accepted here: open one yourself (await source.open(...)) and pass its tools' });
      else if (typeof tool.open !== 'function' || typeof tool.name !== 'string' || tool.name === '') issues.push({ path: `tools.${index}`, message: 'must be a tool source with a name and open()' });
      else sources.push(tool);
      return;
    }
    const toolIssues = toolDefinitionIssues(tool, `tools.${index}`);
    if (toolIssues.length === 0 && !('jsonSchema' in tool)) toolIssues.push({ path: `tools.${index}`, message: 'must be created with defineTool()' });
    if (toolIssues.length === 0 && byName.has(tool.name)) toolIssues.push({ path: `tools.${index}.name`, message: `duplicate tool name "${tool.name}"` });
    issues.push(...toolIssues);
    if (toolIssues.length === 0) byName.set(tool.name, tool);
  });
  return { tools: byName, sources, issues };
}
