import { z } from 'zod';
import { BoundsOverrideSchema } from '../contracts/bounds.js';
import { LimitsSchema } from '../contracts/limits.js';
import { McpServersSchema } from '../mcp/mcp-config.js';
import { DeclarativePolicySpecSchema } from '../policy/declarative-policy.js';
import { declarativeGuardrailSchema } from '../guardrails/declarative-guardrails.js';
import { agentsSchema } from './agent-schema.js';
import { ManifestTaskSchema } from './manifest-task.js';
import { RateLimitSchema } from '../providers/rate-limit-schema.js';

/*
 * The manifest: a YAML description of a workflow that `dualloop run` executes. Every path in it
 * is relative to the manifest's own directory. Unknown fields are errors (a typo must not be
 * silently ignored). docs/manifest.md documents each field; docs/manifest.schema.json is
 * generated from this schema for editor completion.
 */

const positiveInt = z.number().int().positive();

const Pricing = z
  .strictObject({ inputPerMillion: z.number().nonnegative(), outputPerMillion: z.number().nonnegative() })
  .describe('USD per million tokens; overrides the built-in price table');

export const OpenAIModelBlockSchema = z.strictObject({
  provider: z.literal('openai'),
  name: z.string().trim().min(1, 'must be a model name').describe('Model name as the server knows it (gpt-4.1-mini, llama3.1, an Azure deployment…)'),
  baseURL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional().describe('The server /v1 root; default OPENAI_BASE_URL, then OpenAI'),
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name')
    .optional()
    .describe('Name of the environment variable holding the key (never the key itself); default OPENAI_API_KEY'),
  organization: z.string().min(1).optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxOutputTokens: positiveInt.optional(),
  maxOutputTokensParameter: z.enum(['max_completion_tokens', 'max_tokens']).optional(),
  pricing: Pricing.optional(),
  timeoutMs: positiveInt.optional(),
  maxRetries: z.number().int().min(0).max(10).optional(),
  rateLimit: RateLimitSchema().optional(),
});

export const ScriptedModelBlockSchema = z.strictObject({
  provider: z.literal('scripted'),
  script: z.string().trim().min(1, 'must be a file path').describe('A cassette, relative to the manifest: a JSON or YAML list of scripted steps (one per model call, in order), or a mapping of task ids to such lists (each task’s calls in its own order)'),
  rateLimit: RateLimitSchema().optional(),
});

export const AiSdkModelBlockSchema = z.strictObject({
  provider: z.literal('ai-sdk'),
  module: z.string().trim().min(1, 'must be a module path').describe('A JavaScript module, relative to the manifest, exporting an AI SDK provider model (LanguageModelV4 or V3)'),
  export: z.string().trim().min(1).optional().describe('The export holding the model; default `default`, then `model`'),
  pricing: Pricing.optional(),
  maxRetries: z.number().int().min(0).max(10).optional(),
  rateLimit: RateLimitSchema().optional(),
});

export const ModelBlockSchema = z.discriminatedUnion('provider', [OpenAIModelBlockSchema, ScriptedModelBlockSchema, AiSdkModelBlockSchema], {
  error: 'must be "openai", "ai-sdk" or "scripted"',
});

const rootDirectory = z.string().trim().min(1, 'must be a directory path').describe('The directory the tool may read, relative to the manifest');

export const BuiltinToolSchema = z.union([
  z.enum(['calculator', 'current_time'], {
    error: 'must be "calculator", "current_time", or an object such as { name: read_file, root: ./data }',
  }),
  z.discriminatedUnion(
    'name',
    [
      z.strictObject({ name: z.literal('calculator') }),
      z.strictObject({ name: z.literal('current_time') }),
      z.strictObject({ name: z.literal('read_file'), root: rootDirectory, maxBytes: positiveInt.optional() }),
      z.strictObject({ name: z.literal('list_files'), root: rootDirectory }),
    ],
    { error: 'must be one of calculator, current_time, read_file, list_files' },
  ),
]);
export type BuiltinToolSpec = z.infer<typeof BuiltinToolSchema>;

export const ToolsBlockSchema = z.strictObject({
  builtin: z.array(BuiltinToolSchema).optional().describe('Built-in tools by name (docs/builtin-tools.md)'),
  module: z
    .string()
    .trim()
    .min(1, 'must be a module path')
    .optional()
    .describe('A JavaScript module, relative to the manifest, whose exports include tools made with defineTool()'),
  agents: z
    .array(z.string().trim().min(1, 'must be an agent name'))
    .optional()
    .describe('Names of the agents (under agents:) the tasks may call, each as a tool of that name'),
});

export const STRATEGIES = ['react', 'plan_execute', 'hybrid', 'auto'] as const;

export const ManifestSchema = z.strictObject({
  name: z.string().trim().min(1, 'must be a non-empty name').describe('Shown by `dualloop runs`; kept with the run'),
  model: ModelBlockSchema,
  system: z.string().optional().describe('The system prompt'),
  tools: ToolsBlockSchema.optional(),
  mcp: z
    .strictObject({
      servers: McpServersSchema().describe('By name: { command, args?, env?, cwd? } (stdio) or { url, headers? } (Streamable HTTP); `${VAR}` in env and header values reads the environment'),
      startTimeoutMs: positiveInt.optional(),
      toolTimeoutMs: positiveInt.optional(),
    })
    .optional()
    .describe('MCP servers whose tools the run may call, named <server>__<tool> (docs/mcp.md)'),
  tasks: z
    .array(ManifestTaskSchema)
    .min(1, 'must hold at least one task')
    .optional()
    .describe('The tasks: in order, or a graph when a task has dependsOn or forEach; a plan strategy may instead plan from `goal`'),
  bounds: BoundsOverrideSchema().optional(),
  policy: DeclarativePolicySpecSchema().optional(),
  guardrails: z
    .array(declarativeGuardrailSchema(ModelBlockSchema.describe('The judge model; default the manifest model')))
    .optional()
    .describe('Checks that stop a task by name (docs/guardrails.md): every task runs all of them unless it lists its own in guardrails'),
  agents: agentsSchema(ModelBlockSchema, z.enum(STRATEGIES)).optional(),
  store: z
    .strictObject({
      path: z
        .string()
        .trim()
        .min(1, 'must be a file path')
        // A URL here would be taken for a file name, and a manifest is no place for a password.
        .refine((path) => !/^postgres(ql)?:\/\//i.test(path), 'is a SQLite file path: give a postgres:// URL as --store on the command line instead')
        .describe('SQLite file, relative to the manifest'),
    })
    .optional()
    .describe('Where runs are kept; default .dualloop/runs.db in the current directory'),
  strategy: z.enum(STRATEGIES).optional().describe('How the outer loop picks its tasks (default react); docs/strategies.md'),
  planner: ModelBlockSchema.optional().describe('The model that writes and revises plans (plan strategies); default the model'),
  goal: z.string().trim().min(1, 'must be a non-empty goal').optional().describe('What the planner turns into steps; default the tasks'),
  autoRules: z
    .strictObject({
      maxTasksForReact: positiveInt.optional(),
      longGoalChars: positiveInt.optional(),
      classify: z.boolean().optional().describe('Ask the planner to classify the workflow first'),
    })
    .optional()
    .describe('How strategy auto picks a strategy'),
  toolExecution: z.enum(['sequential', 'parallel', 'batch']).optional(),
  toolConcurrency: positiveInt.optional(),
  wrapUpOnBound: z.boolean().optional().describe('A task stopped by a count bound gets one last tool-less call for its best answer'),
  onTaskStop: z.enum(['halt', 'continue']).optional().describe('What the workflow does when a task stops for anything but natural completion'),
  loopDetection: z
    .union([z.literal(false), z.strictObject({ threshold: z.number().int().min(2) })])
    .optional()
    .describe('The same tool call this many times in a row stops the task loop_detected; false turns it off'),
  limits: LimitsSchema().optional().describe('Size and shape limits on what models and tools hand the run; each has a default (docs/security.md)'),
  secrets: z
    .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'))
    .optional()
    .describe('Environment variables whose values are secrets: replaced by [redacted] in every store, log and output (docs/security.md)'),
});
export type Manifest = z.infer<typeof ManifestSchema>;
