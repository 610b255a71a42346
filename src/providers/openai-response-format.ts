/**
 * `ModelRequest.responseFormat` as Chat Completions' `response_format` (docs/providers.md,
 * "Structured output"). OpenAI's strict mode decodes only what the schema allows, but accepts
 * only a subset of JSON Schema: an object at the root, every object listing all its properties
 * in `required` with `additionalProperties: false`, and a known set of keywords. A schema in
 * that subset is sent `strict: true`, `additionalProperties: false` added to objects that do
 * not say (that only narrows what the model may write, so its answers still match the schema).
 * Any other schema — optional properties, records, `allOf`, unknown keywords — is sent as it is
 * with `strict: false`: a hint the model follows, checked by the kernel like any answer (ADR/0423).
 */
import type { ResponseFormat } from '../contracts/model.js';
import type { JsonSchema } from '../contracts/turn-protocol.js';

export interface WireResponseFormat {
  readonly type: 'json_schema';
  readonly json_schema: { readonly name: string; readonly schema: JsonSchema; readonly strict: boolean };
}

/** Keywords strict mode accepts (OpenAI's "supported schemas"); any other keeps the schema non-strict. */
const STRICT_KEYWORDS = new Set([
  'type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'anyOf', '$ref', '$defs', 'definitions',
  'description', 'title', 'pattern', 'format', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'minItems', 'maxItems',
]);

const strictCopies = new WeakMap<JsonSchema, JsonSchema | null>();

export function toWireResponseFormat(format: ResponseFormat): WireResponseFormat {
  const strict = strictSchema(format.schema);
  return { type: 'json_schema', json_schema: { name: format.name, schema: strict ?? format.schema, strict: strict !== undefined } };
}

/** The schema as strict mode takes it, or `undefined` when it is not in the strict subset (cached per schema object). */
export function strictSchema(schema: JsonSchema): JsonSchema | undefined {
  let copy = strictCopies.get(schema);
  if (copy === undefined) {
    copy = schema.type === 'object' ? (strictNode(schema) ?? null) : null;
    strictCopies.set(schema, copy);
  }
  return copy ?? undefined;
}

function strictNode(node: unknown): JsonSchema | undefined {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
  const schema = node as JsonSchema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!STRICT_KEYWORDS.has(key)) return undefined;
    const strict = strictValue(key, value);
    if (strict === undefined) return undefined;
    copy[key] = strict;
  }
  if (!isObjectType(schema)) return copy;
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const required = Array.isArray(schema.required) ? schema.required : [];
  if (Object.keys(properties).some((name) => !required.includes(name))) return undefined;
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) return undefined;
  return { ...copy, additionalProperties: false };
}

/** A keyword's value with its sub-schemas made strict; `undefined` when one cannot be. */
function strictValue(key: string, value: unknown): unknown {
  switch (key) {
    case 'properties':
    case '$defs':
    case 'definitions':
      return mapEntries(value);
    case 'items':
      return strictNode(value);
    case 'anyOf': {
      if (!Array.isArray(value)) return undefined;
      const branches = value.map(strictNode);
      return branches.every((branch) => branch !== undefined) ? branches : undefined;
    }
    default:
      return value;
  }
}

function mapEntries(value: unknown): Record<string, JsonSchema> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const copy: Record<string, JsonSchema> = {};
  for (const [name, entry] of Object.entries(value)) {
    const strict = strictNode(entry);
    if (strict === undefined) return undefined;
    copy[name] = strict;
  }
  return copy;
}

function isObjectType(schema: JsonSchema): boolean {
  return schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object')) || schema.properties !== undefined;
}
