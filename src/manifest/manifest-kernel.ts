import type { CheckpointStore } from '../contracts/store.js';
import type { Tool } from '../contracts/tool.js';
import { DEFAULT_BOUNDS, resolveBounds } from '../contracts/bounds.js';
import { isDualloopError, type ConfigIssue } from '../errors.js';
import { createKernel, type Kernel } from '../kernel/create-kernel.js';
import type { KernelOptions } from '../kernel/options.js';
import { manifestFingerprint } from './manifest-fingerprint.js';
import { normalizeTasks } from '../kernel/tasks.js';
import { MIN_SECRET_LENGTH } from '../redaction/secret-values.js';
import { declarativePolicy } from '../policy/declarative-policy.js';
import { declarativeGuardrail } from '../guardrails/declarative-guardrails.js';
import type { Guardrail } from '../contracts/guardrails.js';
import type { Model } from '../contracts/model.js';
import { applyBoundOverrides, type BoundOverrides } from './bound-overrides.js';
import type { LoadedManifest, ManifestResult } from './load-manifest.js';
import type { Manifest } from './manifest-schema.js';
import { manifestTaskIds } from './manifest-task.js';
import { resolveModel } from './resolve-model.js';
import { resolveTools } from './resolve-tools.js';
import { withLine, type SourceIssue, type YamlSource } from './yaml-source.js';

/**
 * Turns a validated manifest into kernel options: reads the cassette or configures the
 * OpenAI-compatible model, loads the tools, builds the declarative policy, applies the
 * command-line bound overrides. Reports every problem at once, each with its manifest line.
 */
export async function buildKernelOptions(
  loaded: LoadedManifest,
  overrides: BoundOverrides = {},
  environment: NodeJS.ProcessEnv = process.env,
): Promise<ManifestResult<KernelOptions>> {
  const { manifest, source } = loaded;
  const [model, planner, tools, judges] = await Promise.all([
    resolveModel(loaded, manifest.model, 'model', environment),
    manifest.planner === undefined ? undefined : resolveModel(loaded, manifest.planner, 'planner', environment),
    resolveTools(loaded),
    resolveJudges(loaded, environment),
  ]);
  const issues: SourceIssue[] = [
    ...model.issues,
    ...(planner?.issues ?? []),
    ...tools.issues,
    ...judges.issues,
    ...(tools.complete ? policyNameIssues(manifest, tools.tools, source) : taskIdIssues(manifest, source)),
  ];
  const secrets = secretValues(manifest, source, environment);
  issues.push(...secrets.issues);
  if (model.model === undefined || issues.length > 0) return { ok: false, issues };

  const { bounds, tasks } = applyBoundOverrides(manifest.bounds, manifest.tasks ?? [], overrides);
  const guardrails = manifestGuardrails(manifest, model.model, judges.models);
  if (manifest.tasks !== undefined) {
    const names = new Set(guardrails.map((guardrail) => guardrail.name));
    const taskIssues = configIssues(() => normalizeTasks(tasks, resolveBounds(DEFAULT_BOUNDS, bounds), names));
    if (taskIssues.length > 0) return { ok: false, issues: taskIssues.map((issue) => kernelIssue(source, issue.path, issue.message)) };
  }
  const options: KernelOptions = {
    name: manifest.name,
    model: model.model,
    tools: tools.tools,
    ...(manifest.tasks === undefined ? {} : { tasks }),
    bounds,
    ...(manifest.system === undefined ? {} : { system: manifest.system }),
    ...(manifest.policy === undefined ? {} : { policy: declarativePolicy(manifest.policy) }),
    ...(guardrails.length === 0 ? {} : { guardrails }),
    ...(manifest.toolExecution === undefined ? {} : { toolExecution: manifest.toolExecution }),
    ...(manifest.toolConcurrency === undefined ? {} : { toolConcurrency: manifest.toolConcurrency }),
    ...(manifest.wrapUpOnBound === undefined ? {} : { wrapUpOnBound: manifest.wrapUpOnBound }),
    ...(manifest.onTaskStop === undefined ? {} : { onTaskStop: manifest.onTaskStop }),
    ...(manifest.loopDetection === undefined ? {} : { loopDetection: manifest.loopDetection }),
    ...(manifest.limits === undefined ? {} : { limits: manifest.limits }),
    ...(manifest.strategy === undefined ? {} : { strategy: manifest.strategy }),
    ...(planner?.model === undefined ? {} : { planner: planner.model }),
    ...(manifest.goal === undefined ? {} : { goal: manifest.goal }),
    ...(manifest.autoRules === undefined ? {} : { autoRules: manifest.autoRules }),
    ...(secrets.values.length === 0 ? {} : { redact: secrets.values }),
    fingerprint: await manifestFingerprint(loaded),
  };
  return { ok: true, value: options };
}

/** The models of the guardrails' judges that name their own (`judge.model`), by guardrail position. */
async function resolveJudges(loaded: LoadedManifest, environment: NodeJS.ProcessEnv): Promise<{ models: Map<number, Model>; issues: SourceIssue[] }> {
  const models = new Map<number, Model>();
  const issues: SourceIssue[] = [];
  await Promise.all(
    (loaded.manifest.guardrails ?? []).map(async (spec, index) => {
      const block = spec.judge?.model;
      if (block === undefined) return;
      const resolved = await resolveModel(loaded, block, ['guardrails', index, 'judge', 'model'], environment);
      if (resolved.model !== undefined) models.set(index, resolved.model);
      issues.push(...resolved.issues);
    }),
  );
  return { models, issues };
}

/** The manifest's guardrails; a judge without a model of its own asks the manifest's model. */
function manifestGuardrails(manifest: Manifest, model: Model, judges: ReadonlyMap<number, Model>): Guardrail[] {
  return (manifest.guardrails ?? []).map((spec, index) => {
    const { judge, ...rest } = spec;
    return declarativeGuardrail({ ...rest, ...(judge === undefined ? {} : { judge: { prompt: judge.prompt } }) }, { model: judges.get(index) ?? model });
  });
}

/**
 * The values of the environment variables `secrets:` names (ADR/0100). An unset variable has
 * nothing to redact; a value too short to redact without wrecking ordinary text is an error.
 */
function secretValues(manifest: Manifest, source: YamlSource, environment: NodeJS.ProcessEnv): { values: string[]; issues: SourceIssue[] } {
  const values: string[] = [];
  const issues: SourceIssue[] = [];
  (manifest.secrets ?? []).forEach((name, index) => {
    const value = environment[name];
    if (value === undefined || value === '') return;
    if (value.length < MIN_SECRET_LENGTH) issues.push(withLine(source, ['secrets', index], `the value of ${name} is shorter than ${MIN_SECRET_LENGTH} characters: too short to redact safely`));
    else values.push(value);
  });
  return { values, issues };
}

/** Creates the kernel, turning its ConfigError (duplicate task ids, tool problems…) into manifest problems with lines. */
export function createManifestKernel(loaded: LoadedManifest, options: KernelOptions, store?: CheckpointStore): ManifestResult<Kernel> {
  let kernel: Kernel | undefined;
  const issues = configIssues(() => (kernel = createKernel({ ...options, ...(store === undefined ? {} : { store }) })));
  if (kernel === undefined) return { ok: false, issues: issues.map((issue) => kernelIssue(loaded.source, issue.path, issue.message)) };
  return { ok: true, value: kernel };
}

/** The ConfigError issues `action` throws, or none. */
function configIssues(action: () => unknown): readonly ConfigIssue[] {
  try {
    action();
    return [];
  } catch (error) {
    if (isDualloopError(error, 'config_invalid')) return error.issues;
    throw error;
  }
}

function kernelIssue(source: YamlSource, path: string, message: string): SourceIssue {
  const segments = path.split('.').filter((segment) => segment !== '');
  // Tools come from the module or the built-ins; point problems with them at the tools block.
  return withLine(source, segments[0] === 'tools' ? ['tools'] : segments, message);
}

function policyNameIssues(manifest: Manifest, tools: readonly Tool[], source: YamlSource): SourceIssue[] {
  const policy = manifest.policy;
  if (policy === undefined) return [];
  const names = new Set(tools.map((tool) => tool.name));
  const known = names.size === 0 ? 'the manifest has no tools' : `tools: ${[...names].join(', ')}`;
  // MCP tools are known only once their servers run: a name with a configured server's prefix passes.
  const mcpPrefixes = Object.keys(manifest.mcp?.servers ?? {}).map((server) => `${server}__`);
  const issues: SourceIssue[] = [];
  for (const list of ['allow', 'deny', 'requireApproval'] as const) {
    (policy[list] ?? []).forEach((name, index) => {
      if (!names.has(name) && !mcpPrefixes.some((prefix) => name.startsWith(prefix))) issues.push(withLine(source, ['policy', list, index], `no tool named "${name}" (${known})`));
    });
  }
  return [...issues, ...taskIdIssues(manifest, source)];
}

/** Task ids named by the policy that no task has (checked even when the tools are unknown). */
function taskIdIssues(manifest: Manifest, source: YamlSource): SourceIssue[] {
  const policy = manifest.policy;
  if (policy === undefined) return [];
  const taskIds = new Set(manifestTaskIds(manifest.tasks ?? []).map((task) => task.id));
  const issues: SourceIssue[] = [];
  (policy.approveTasks ?? []).forEach((id, index) => {
    if (!taskIds.has(id)) issues.push(withLine(source, ['policy', 'approveTasks', index], `no task with id "${id}" (tasks: ${[...taskIds].join(', ')})`));
  });
  return issues;
}
