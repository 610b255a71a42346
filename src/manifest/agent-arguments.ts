/**
 * The arguments of a manifest agent's call in its tasks (docs/manifest.md, ADR/0481): a task
 * description may hold `{{args}}` (every argument, as JSON) and `{{args.<field>[.<path>]}}` (one
 * argument: a string as it is, anything else as JSON, a missing optional one as nothing). They
 * are filled when the parent's model calls the agent, before the child run starts; validate
 * refuses a placeholder naming a field the agent's `parameters` schema cannot have. Pure.
 */
import type { JsonSchema } from '../contracts/turn-protocol.js';
import { schemaAt } from '../graph/json-schema-path.js';
import { placeholderText, valueAt } from '../graph/placeholders.js';
import { closestName } from './did-you-mean.js';

/** The parameters of an agent that does not set its own: one string, the whole request. */
export const DEFAULT_AGENT_PARAMETERS: JsonSchema = Object.freeze({
  type: 'object',
  properties: Object.freeze({ task: Object.freeze({ type: 'string', description: 'What the agent is asked to do, in full' }) }),
  required: Object.freeze(['task']),
});

const ARGUMENT = /\{\{\s*args(?:\.([^{}]*?))?\s*\}\}/g;

/** Each `{{args…}}` of a description: its text and the path into the arguments (empty for `{{args}}`). */
function argumentPlaceholders(description: string): { readonly text: string; readonly path: readonly string[] }[] {
  return [...description.matchAll(ARGUMENT)].map((match) => ({ text: match[0], path: match[1] === undefined ? [] : match[1].split('.') }));
}

/**
 * The description with its argument placeholders filled. What an argument holds is the calling
 * model's text: a `{{` in it is written `{ {`, so that it cannot become a placeholder of the
 * child's own graph (`{{<taskId>.output}}`), which is read after this.
 */
export function fillArguments(description: string, args: unknown): string {
  return description.replace(ARGUMENT, (_whole, inner: string | undefined) => {
    const value = inner === undefined ? args : valueAt(args, inner.split('.'));
    return placeholderText(value).replaceAll('{{', '{ {');
  });
}

/** A description as validate checks it among the agent's tasks: argument placeholders stand for some text. */
export function withSampleArguments(description: string): string {
  return description.replace(ARGUMENT, 'argument');
}

/** Why each argument placeholder of the description names nothing the parameters can hold. */
export function argumentProblems(description: string, parameters: JsonSchema): string[] {
  const fields = Object.keys((parameters.properties as Record<string, unknown> | undefined) ?? {});
  return argumentPlaceholders(description).flatMap(({ text, path }) => {
    if (path.some((segment) => segment.trim() === '')) return [`${text} is not a placeholder: write {{args}} or {{args.<field>}}`];
    if (path.length === 0 || schemaAt(parameters, path) !== undefined) return [];
    const suggestion = path.length === 1 ? closestName(path[0]!, fields) : undefined;
    const known = fields.length === 0 ? 'the parameters have no fields' : `its fields: ${fields.join(', ')}`;
    return [`${text} names no field of the agent's parameters (${known}${suggestion === undefined ? '' : `; did you mean {{args.${suggestion}}}?`})`];
  });
}
