import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Tool } from '../contracts/tool.js';
import { describeError } from '../errors.js';
import { calculatorTool } from '../tools/builtin/calculator.js';
import { currentTimeTool } from '../tools/builtin/current-time.js';
import { listFilesTool, readFileTool } from '../tools/builtin/file-tools.js';
import type { LoadedManifest } from './load-manifest.js';
import type { BuiltinToolSpec } from './manifest-schema.js';
import { withLine, type SourceIssue } from './yaml-source.js';

export interface ToolsResult {
  readonly tools: readonly Tool[];
  readonly issues: readonly SourceIssue[];
  /** False when `tools.module` could not be loaded: its tools are unknown, so names cannot be checked against them. */
  readonly complete: boolean;
}

/**
 * The manifest's tools: built-ins by name, then every tool exported by `tools.module` (named
 * exports made with `defineTool`, or a default export holding an array of them). Importing the
 * module runs its code: a manifest is trusted like any program you run.
 */
export async function resolveTools(loaded: LoadedManifest): Promise<ToolsResult> {
  const { manifest, directory, source } = loaded;
  const issues: SourceIssue[] = [];
  const tools: { tool: Tool; path: PropertyKey[] }[] = [];

  for (const [index, spec] of (manifest.tools?.builtin ?? []).entries()) {
    const path = ['tools', 'builtin', index];
    const created = await createBuiltin(spec, directory);
    if (typeof created === 'string') issues.push(withLine(source, typeof spec === 'string' ? path : [...path, 'root'], created));
    else tools.push({ tool: created, path });
  }

  const modulePath = manifest.tools?.module;
  let complete = true;
  if (modulePath !== undefined) {
    const path = ['tools', 'module'];
    const loadedTools = await importTools(resolve(directory, modulePath));
    if (typeof loadedTools === 'string') {
      issues.push(withLine(source, path, loadedTools));
      complete = false;
    } else for (const tool of loadedTools) tools.push({ tool, path });
  }

  const seen = new Set<string>();
  for (const { tool, path } of tools) {
    if (seen.has(tool.name)) issues.push(withLine(source, path, `duplicate tool name "${tool.name}"`));
    seen.add(tool.name);
  }
  return { tools: tools.map(({ tool }) => tool), issues, complete };
}

/**
 * The built-in tools that need no settings, which an agent may name without the manifest's
 * `tools.builtin` listing them (ADR/0481); `read_file` and `list_files` need a root, so they must be listed.
 */
export function settinglessBuiltins(): readonly Tool[] {
  return [calculatorTool(), currentTimeTool()];
}

async function createBuiltin(spec: BuiltinToolSpec, directory: string): Promise<Tool | string> {
  const name = typeof spec === 'string' ? spec : spec.name;
  switch (name) {
    case 'calculator':
      return calculatorTool();
    case 'current_time':
      return currentTimeTool();
    case 'read_file':
    case 'list_files': {
      const options = spec as Extract<BuiltinToolSpec, { name: 'read_file' | 'list_files' }>;
      const root = resolve(directory, options.root);
      const problem = await directoryProblem(root);
      if (problem !== undefined) return `${options.root}: ${problem}`;
      return options.name === 'read_file' ? readFileTool({ root, ...('maxBytes' in options && options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}) }) : listFilesTool({ root });
    }
  }
}

async function directoryProblem(path: string): Promise<string | undefined> {
  try {
    return (await stat(path)).isDirectory() ? undefined : 'is not a directory';
  } catch {
    return 'directory not found';
  }
}

async function importTools(path: string): Promise<readonly Tool[] | string> {
  // Only a regular file is imported: `/dev/zero` or a FIFO would make the import read forever.
  const kind = await stat(path).catch(() => undefined);
  if (kind !== undefined && !kind.isFile()) return kind.isDirectory() ? 'is a directory, not a module file' : 'is not a regular file (a device, FIFO or socket)';
  let exports: Record<string, unknown>;
  try {
    exports = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A missing module and a module whose own import is missing both have this code; only the first names our path first.
    const missing = code === 'ERR_MODULE_NOT_FOUND' && describeError(error).startsWith(`Cannot find module '${path}'`);
    return missing ? `module not found: ${path}` : `cannot load the module ${path}: ${describeError(error)}`;
  }
  const candidates = Object.values(exports).flatMap((value) => (Array.isArray(value) ? value : [value]));
  const tools = candidates.filter(isTool);
  if (tools.length === 0) return 'the module exports no tool made with defineTool()';
  return [...new Set(tools)];
}

function isTool(value: unknown): value is Tool {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<Tool>;
  return typeof candidate.name === 'string' && typeof candidate.execute === 'function' && typeof candidate.jsonSchema === 'object';
}
