import { closestName, knownKeysAt } from './did-you-mean.js';
import { ManifestSchema } from './manifest-schema.js';
import { withLine, type SourceIssue, type YamlSource } from './yaml-source.js';

/*
 * What the document must be as a whole, beside what the schema says of each field (ADR/0405):
 * a file that is not a manifest at all (`dualloop run package.json`, a cassette) is one problem
 * saying so, not a list of every field it has; a manifest lacking what a workflow needs says each
 * missing field in the same pass as the others.
 */

/** Fields a workflow is made of: a document with one of them is a manifest, however broken. */
const WORKFLOW_FIELDS: readonly string[] = ['model', 'tasks', 'goal'];

const STARTER = '`dualloop init` writes a starter manifest';

/** One issue when the document is not a manifest; undefined when it is one, however broken. */
export function notAManifest(value: unknown, source: YamlSource): SourceIssue | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = Array.isArray(value) ? 'a list' : `a single ${value === null ? 'null' : typeof value} value`;
    return withLine(source, [], `not a dualloop manifest: a manifest is a mapping of fields (name, model, tasks, …), this file holds ${kind}; ${STARTER}`);
  }
  const known = knownKeysAt(ManifestSchema, []);
  const keys = Object.keys(value);
  const recognised = keys.filter((key) => known.includes(key) || closestName(key, known) !== undefined);
  const foreign = keys.filter((key) => !recognised.includes(key));
  // A manifest with typos keeps its near misses (`modle:`) and gets "did you mean" for each.
  if (keys.some((key) => WORKFLOW_FIELDS.includes(key)) || foreign.length <= recognised.length) return undefined;
  const shown = foreign.length > 3 ? `${foreign.slice(0, 3).join(', ')}, …` : foreign.join(', ');
  return withLine(source, [], `not a dualloop manifest: it has no model and no tasks, and ${foreign.length} of its ${keys.length} fields are not manifest fields (${shown}); ${STARTER}`);
}

/** `tasks` is required unless a plan strategy plans from `goal`; said whether or not the schema passed. */
export function missingTasks(value: unknown, source: YamlSource): SourceIssue | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const fields = value as Readonly<Record<string, unknown>>;
  if (fields['tasks'] !== undefined || fields['goal'] !== undefined) return undefined;
  return withLine(source, ['tasks'], 'required (or a `goal` for a plan strategy)');
}
