import { dirname, relative, resolve } from 'node:path';
import { missingTasks, notAManifest } from './manifest-document.js';
import { ManifestSchema, type Manifest } from './manifest-schema.js';
import { readYamlFile } from './read-yaml-file.js';
import { schemaIssues } from './schema-issues.js';
import type { SourceIssue, YamlSource } from './yaml-source.js';

/** A manifest that passed the schema, with where it came from (for relative paths and line numbers). */
export interface LoadedManifest {
  readonly manifest: Manifest;
  /** Absolute path of the manifest file. */
  readonly path: string;
  /** Its directory: every relative path in the manifest is resolved against it. */
  readonly directory: string;
  readonly source: YamlSource;
}

export type ManifestResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly issues: readonly SourceIssue[] };

/** Reads, parses and validates a manifest; every problem comes back at once, each with its path and line. */
export async function loadManifest(manifestPath: string, cwd: string = process.cwd()): Promise<ManifestResult<LoadedManifest>> {
  const path = resolve(cwd, manifestPath);
  const file = displayPath(path, cwd);
  const parsed = await readYamlFile(path, file);
  if (!parsed.ok) return parsed;
  if (parsed.value === null || parsed.value === undefined) return { ok: false, issues: [{ file, path: '', message: 'the manifest is empty' }] };
  const foreign = notAManifest(parsed.value, parsed.source);
  if (foreign !== undefined) return { ok: false, issues: [foreign] };
  const result = ManifestSchema.safeParse(parsed.value);
  const tasks = missingTasks(parsed.value, parsed.source);
  const found = [...(result.success ? [] : schemaIssues(result.error, parsed.source, ManifestSchema)), ...(tasks === undefined ? [] : [tasks])];
  // The missing top-level fields first, together: what the manifest lacks, then what it has wrong.
  const missing = (issue: SourceIssue) => !issue.path.includes('.') && issue.message.startsWith('required');
  const issues = [...found.filter(missing), ...found.filter((issue) => !missing(issue))];
  if (!result.success || issues.length > 0) return { ok: false, issues };
  return { ok: true, value: { manifest: result.data, path, directory: dirname(path), source: parsed.source } };
}

/** A path as the user would type it from `cwd`: relative when inside it, absolute otherwise. */
export function displayPath(path: string, cwd: string = process.cwd()): string {
  const shown = relative(cwd, path);
  return shown === '' || shown.startsWith('..') ? path : shown;
}
