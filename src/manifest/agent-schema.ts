/**
 * A manifest's `agents:` (docs/manifest.md, docs/delegation.md, ADR/0481): agents by name, each
 * the fields of `agentTool` written as data. What one entry can say of itself is checked here —
 * its parameters schema, its tasks' `{{args.…}}` placeholders — so that those problems come on
 * their lines with the manifest's other field problems; what it names elsewhere (tools, agents,
 * guardrails, cycles) is checked once the tools are known (agent-references.ts).
 */
import { z } from 'zod';
import { BoundsOverrideSchema } from '../contracts/bounds.js';
import type { JsonSchema } from '../contracts/turn-protocol.js';
import { outputJsonSchema } from '../graph/output-schema.js';
import { DeclarativePolicySpecSchema } from '../policy/declarative-policy.js';
import { argumentProblems, DEFAULT_AGENT_PARAMETERS } from './agent-arguments.js';
import { ManifestTaskSchema } from './manifest-task.js';

/** An agent's name is the name of the tool the calling model sees. */
const AGENT_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const NAME_RULE = 'must be 1–64 letters, digits, "_" or "-" (it is the name of the tool the calling model sees)';

/** The problem with a `parameters:` value, or `undefined`: it must be a JSON Schema of an object this version can check. */
function parametersProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return `must be a JSON Schema object, such as { type: object, properties: { topic: { type: string } } } (got ${value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value})`;
  }
  const checked = outputJsonSchema(value);
  if ('problem' in checked) return checked.problem;
  if (!(z.fromJSONSchema(checked.schema as Parameters<typeof z.fromJSONSchema>[0]) instanceof z.ZodObject)) {
    return 'must describe an object (type: object, with its properties): the arguments of a tool call are one';
  }
  return undefined;
}

const ParametersSchema = z
  .unknown()
  .superRefine((value, context) => {
    const problem = parametersProblem(value);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
  })
  .meta({ type: 'object', description: 'A JSON Schema (type: object) of the arguments the calling model passes; default one required string field, task' });

const ToolName = z.string().regex(AGENT_NAME, 'must be a tool or agent name: 1–64 letters, digits, "_" or "-"');

/** The schema of `agents:`, with the manifest's model block and strategy schemas (defined beside the manifest's own fields). */
export function agentsSchema<Model extends z.ZodType, Strategy extends z.ZodType>(modelBlock: Model, strategy: Strategy) {
  const Agent = z
    .strictObject({
      description: z.string().trim().min(1, 'must say what the agent does: the calling model reads it').describe('What the agent does, as the calling model reads it'),
      parameters: ParametersSchema.optional(),
      tasks: z
        .array(ManifestTaskSchema)
        .min(1, 'must hold at least one task')
        .describe('The child run’s tasks, as the manifest’s tasks; descriptions may hold {{args}} and {{args.<field>}}'),
      model: modelBlock.optional().describe('The agent’s model; default the manifest’s'),
      system: z.string().optional().describe('The agent’s system prompt; default the manifest’s'),
      tools: z
        .array(ToolName)
        .optional()
        .describe('The agent’s tools by name: built-in and module tools of the manifest, MCP tools (<server>__<tool>), other agents; default the manifest’s tools and MCP tools, no agent'),
      bounds: BoundsOverrideSchema().optional().describe('The agent’s own bounds, held within what the caller has left at the call'),
      strategy: strategy.optional(),
      policy: DeclarativePolicySpecSchema().optional().describe('The agent’s declarative policy; default the manifest’s'),
      guardrails: z.array(z.string().trim().min(1)).optional().describe('Names of the manifest’s guardrails the agent’s tasks run; default all of them'),
      timeoutMs: z.number().int().positive().optional().describe('How long one call may take; the child run is cancelled when it passes'),
    })
    .superRefine((agent, context) => {
      const parameters = agent.parameters === undefined ? DEFAULT_AGENT_PARAMETERS : agent.parameters;
      if (parametersProblem(parameters) !== undefined) return;
      agent.tasks.forEach((task, index) => {
        const description = typeof task === 'string' ? task : task.description;
        const path = typeof task === 'string' ? ['tasks', index] : ['tasks', index, 'description'];
        // A path of its own for each issue: zod prefixes an issue's path in place.
        for (const message of argumentProblems(description, parameters as JsonSchema)) context.addIssue({ code: 'custom', path: [...path], message });
      });
    });
  return z
    .record(z.string().regex(AGENT_NAME, NAME_RULE), Agent)
    .describe('Agents by name: tools whose execution is a child run (docs/delegation.md); the manifest’s tasks call those named in tools.agents');
}
