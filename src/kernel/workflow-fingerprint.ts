/**
 * The fingerprint of a kernel's workflow (src/contracts/fingerprint.ts): built once per kernel
 * from its options, stored with every run it starts, compared when it takes up a run.
 */
import { createHash } from 'node:crypto';
import type { Bounds } from '../contracts/bounds.js';
import type { ToolPrint, WorkflowFingerprint } from '../contracts/fingerprint.js';
import { isToolSource, type Tool } from '../contracts/tool.js';
import type { KernelOptions } from './options.js';
import { outputJsonSchema } from '../graph/output-schema.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export function workflowFingerprint(options: KernelOptions, bounds: Bounds): WorkflowFingerprint {
  const tools: Record<string, ToolPrint> = {};
  for (const tool of options.tools ?? []) {
    if (isToolSource(tool)) tools[`source:${tool.name}`] = { description: sha256(''), schema: sha256(''), properties: [], required: [] };
    else tools[tool.name] = toolPrint(tool);
  }
  const model = `${options.model.provider}/${options.model.modelId}`;
  const planner = options.planner === undefined ? undefined : `${options.planner.provider}/${options.planner.modelId}`;
  return {
    model,
    ...(planner === undefined || planner === model ? {} : { planner }),
    system: options.system === undefined || options.system === '' ? null : sha256(options.system),
    tools,
    bounds: flatBounds(bounds),
    strategy: options.strategy ?? 'react',
    policy: policyPrint(options.policy),
    guardrails: (options.guardrails ?? []).map(guardrailPrint),
    tasks: options.tasks === undefined ? null : tasksPrint(options.tasks),
    extra: { ...(options.fingerprint ?? {}) },
  };
}

/**
 * The configured tasks without their bounds (the bounds are an item of their own, which a fork and
 * a command line's bound flags may set); a zod output schema as the JSON Schema it stands for.
 */
function tasksPrint(tasks: NonNullable<KernelOptions['tasks']>): string {
  const shapes = tasks.map((task) => {
    if (typeof task === 'string') return task;
    const { bounds: _bounds, output, ...rest } = task;
    return { ...rest, ...(output === undefined ? {} : { output: outputJsonSchema(output) }) };
  });
  return sha256(JSON.stringify(shapes));
}

function toolPrint(tool: Tool): ToolPrint {
  const schema = tool.jsonSchema as { properties?: Record<string, unknown>; required?: unknown };
  return {
    description: sha256(tool.description),
    schema: sha256(JSON.stringify(tool.jsonSchema)),
    properties: Object.keys(schema.properties ?? {}).sort(),
    required: Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string').sort() : [],
    ...(tool.version === undefined ? {} : { version: tool.version }),
  };
}

/** A guardrail is code: its name, stage, mode and version compare. */
function guardrailPrint(guardrail: NonNullable<KernelOptions['guardrails']>[number]): string {
  const version = guardrail.version === undefined ? '' : `@${guardrail.version}`;
  return `${guardrail.name}${version} (${guardrail.on}, ${guardrail.mode ?? 'stop'})`;
}

function flatBounds(bounds: Bounds): Record<string, number> {
  const flat: Record<string, number> = {};
  for (const [scope, values] of [['inner', bounds.inner], ['outer', bounds.outer]] as const) {
    for (const [name, value] of Object.entries(values)) if (typeof value === 'number') flat[`${scope}.${name}`] = value;
  }
  return flat;
}

/** A policy is code: only which checks it has compare (a manifest's declarative policy adds its hash as an `extra` item). */
function policyPrint(policy: KernelOptions['policy']): string {
  const checks = [policy?.checkTask === undefined ? '' : 'checkTask', policy?.checkToolCall === undefined ? '' : 'checkToolCall'].filter(Boolean);
  return checks.length === 0 ? 'none' : checks.join('+');
}
