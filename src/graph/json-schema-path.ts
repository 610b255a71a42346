/**
 * Paths into a task's `output` JSON Schema, checked before a run starts: does
 * `{{extract.output.files}}` name a field the schema has, and is a `forEach` source an array?
 * Only what the schema states is refused: a schema that does not say (no `type`, `{}`,
 * `additionalProperties`) lets any path through. Pure.
 */
import type { JsonSchema } from '../contracts/turn-protocol.js';

type Schema = JsonSchema | boolean | undefined;

function typesOf(schema: JsonSchema): readonly string[] | undefined {
  const { type } = schema;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((entry): entry is string => typeof entry === 'string');
  return undefined;
}

function alternatives(schema: JsonSchema): readonly JsonSchema[] | undefined {
  const list = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  return Array.isArray(list) ? list.filter((entry): entry is JsonSchema => typeof entry === 'object' && entry !== null) : undefined;
}

/**
 * The schema at `path`: `undefined` when the schema says the path cannot exist, `true` when it
 * does not say (anything may be there), else the sub-schema.
 */
export function schemaAt(schema: Schema, path: readonly string[]): Schema | true {
  if (schema === undefined || schema === true) return true;
  if (schema === false) return undefined;
  if (path.length === 0) return schema;
  const [head, ...rest] = path as [string, ...string[]];
  const branches = alternatives(schema);
  if (branches !== undefined) {
    const found = branches.map((branch) => schemaAt(branch, path)).filter((entry) => entry !== undefined);
    return found.length === 0 ? undefined : (found.find((entry) => entry !== true) ?? true);
  }
  const types = typesOf(schema);
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (properties !== undefined && Object.hasOwn(properties, head)) return schemaAt(properties[head], rest);
  if (/^\d+$/.test(head) && (types === undefined || types.includes('array'))) {
    const items = schema.items as Schema;
    if (items !== undefined || types !== undefined) return schemaAt(items ?? true, rest);
  }
  if (types !== undefined && !types.includes('object')) return undefined;
  const additional = schema.additionalProperties as Schema;
  if (properties !== undefined && additional === undefined && schema.patternProperties === undefined) {
    // A schema that lists its properties and says nothing more: another name is a typo.
    return undefined;
  }
  return additional === false ? undefined : schemaAt(additional ?? true, rest);
}

/** Whether the schema at a path may be an array (`undefined` when the path cannot exist). */
export function arrayAt(schema: Schema, path: readonly string[]): { readonly items: Schema | true } | undefined {
  const found = schemaAt(schema, path);
  if (found === undefined) return undefined;
  if (found === true) return { items: true };
  if (typeof found === 'boolean') return undefined;
  const types = typesOf(found);
  if (types !== undefined && !types.includes('array')) return undefined;
  return { items: (found.items as Schema) ?? true };
}
