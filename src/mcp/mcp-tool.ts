import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Tool } from '../contracts/tool.js';
import { describeError } from '../errors.js';
import type { McpCallResult, McpServerHandle, McpToolInfo } from './mcp-connection.js';

const MAX_NAME = 64;
const MAX_DESCRIPTION = 4_000;

/**
 * `<server>__<tool>`, with every character a model API refuses replaced by `_`; a name longer than
 * 64 characters keeps its start and ends with a short hash of the full name, so it stays unique.
 */
export function dualloopToolName(server: string, tool: string): string {
  const name = `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_');
  if (name.length <= MAX_NAME) return name;
  const hash = createHash('sha256').update(`${server}\u0000${tool}`).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_NAME - hash.length - 1)}_${hash}`;
}

/**
 * The zod schema the kernel validates arguments with: an object, checked against the server's
 * JSON Schema (converted by `z.fromJSONSchema`). The arguments are passed on as the model wrote
 * them. A schema zod cannot convert is reduced to "an object" (the server still validates).
 */
export function parametersFor(inputSchema: Readonly<Record<string, unknown>>): z.ZodObject {
  let converted: z.ZodType | undefined;
  try {
    converted = z.fromJSONSchema(inputSchema as never);
  } catch {
    converted = undefined;
  }
  const object = z.looseObject({});
  if (converted === undefined) return object;
  const schema = converted;
  return object.superRefine((value, context) => {
    const parsed = schema.safeParse(value);
    if (parsed.success) return;
    for (const issue of parsed.error.issues) context.addIssue({ code: 'custom', message: issue.message, path: issue.path as PropertyKey[] });
  });
}

/** One MCP tool as a dualloop tool: validated by the kernel, run through the server's `tools/call`. */
export function toDualloopTool(handle: McpServerHandle, info: McpToolInfo, name: string, timeoutMs: number): Tool {
  const { $schema: _ignored, ...jsonSchema } = (info.inputSchema ?? { type: 'object' }) as Record<string, unknown>;
  const description = (info.description ?? info.title ?? `${info.name} (MCP server ${handle.name})`).slice(0, MAX_DESCRIPTION) || info.name;
  const readOnly = info.annotations?.readOnlyHint === true;
  return Object.freeze({
    name,
    description,
    parameters: parametersFor(jsonSchema),
    jsonSchema: Object.freeze({ type: 'object', ...jsonSchema }),
    timeoutMs,
    secrets: handle.secrets,
    // Read-only tools may run beside each other in `batch` mode; the rest one by one.
    executionMode: readOnly ? ('parallel' as const) : ('sequential' as const),
    execute: async (args: unknown, context: { readonly signal: AbortSignal }) => {
      let result: McpCallResult;
      try {
        // The kernel's timer (timeoutMs) fires first; the client's own timeout is a backstop.
        result = await handle.callTool(info.name, args, { signal: context.signal, timeoutMs: timeoutMs + 1_000 });
      } catch (error) {
        const exit = handle.exitDetail();
        throw new Error(handle.redact(`MCP server "${handle.name}" failed the call: ${describeError(error)}${exit === undefined ? '' : ` (${exit})`}`));
      }
      const output = toToolOutput(result);
      if (result.isError === true) throw new Error(typeof output === 'string' ? output : JSON.stringify(output));
      return output;
    },
  });
}

/**
 * What the model sees of a result: the structured content when the server gave one, else the
 * text blocks (one string), with images, audio and embedded binaries described, not inlined.
 */
export function toToolOutput(result: McpCallResult): unknown {
  if (result.structuredContent !== undefined && result.structuredContent !== null) return result.structuredContent;
  const blocks = Array.isArray(result.content) ? result.content : [];
  const pieces = blocks.map((block) => {
    switch (block.type) {
      case 'text':
        return block.text;
      case 'image':
      case 'audio':
        return `[${block.type} ${block.mimeType}, ${Math.floor((block.data.length * 3) / 4)} bytes omitted]`;
      case 'resource':
        return 'text' in block.resource && typeof block.resource.text === 'string' ? block.resource.text : `[resource ${block.resource.uri}, binary omitted]`;
      case 'resource_link':
        return `[resource link ${block.uri}${block.name ? ` (${block.name})` : ''}]`;
      default:
        return `[${String((block as { type?: unknown }).type)} content omitted]`;
    }
  });
  return pieces.join('\n');
}
