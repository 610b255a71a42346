import type { CheckpointStore } from '../contracts/store.js';
import { DEFAULT_BOUNDS, resolveBounds } from '../contracts/bounds.js';
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
import { configIssues, kernelIssue } from './config-issues.js';
import { manifestAgents, resolveAgentModels } from './manifest-agents.js';
import type { LoadedManifest, ManifestResult } from './load-manifest.js';
import type { Manifest } from './manifest-schema.js';
import { manifestTaskIds } from './manifest-task.js';
import { policyNameIssues } from './policy-names.js';
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
  const [model, planner, tools, judges, agentModels] = await Promise.all([
    resolveModel(loaded, manifest.model, 'model', environment),
    manifest.planner === undefined ? undefined : resolveModel(loaded, manifest.planner, 'planner', environment),
    resolveTools(loaded),
    resolveJudges(loaded, environment),
    resolveAgentModels(loaded, environment),
  ]);
  const guardrails = model.model === undefined ? [] : manifestGuardrails(manifest, model.model, judges.models);
  const agents = manifestAgents(loaded, { model: model.model, tools: tools.tools, complete: tools.complete, guardrails, models: agentModels.models, environment });
  const policyNames = {
    at: ['policy'],
    owner: 'the manifest',
    tools: tools.complete ? [...tools.tools.map((tool) => tool.name), ...(manifest.tools?.agents ?? [])] : undefined,
    mcpServers: Object.keys(manifest.mcp?.servers ?? {}),
    taskIds: manifestTaskIds(manifest.tasks ?? []).map((task) => task.id),
  };
  const secrets = secretValues(manifest, source, environment);
  const issues: SourceIssue[] = [
    ...model.issues,
    ...(planner?.issues ?? []),
    ...tools.issues,
    ...judges.issues,
    ...agentModels.issues,
    ...agents.issues,
    ...policyNameIssues(manifest.policy, policyNames, source),
    ...secrets.issues,
  ];
  if (model.model === undefined || issues.length > 0) return { ok: false, issues };

  const { bounds, tasks } = applyBoundOverrides(manifest.bounds, manifest.tasks ?? [], overrides);
  if (manifest.tasks !== undefined) {
    const names = new Set(guardrails.map((guardrail) => guardrail.name));
    const taskIssues = configIssues(() => normalizeTasks(tasks, resolveBounds(DEFAULT_BOUNDS, bounds), names));
    if (taskIssues.length > 0) return { ok: false, issues: taskIssues.map((issue) => kernelIssue(source, issue.path, issue.message)) };
  }
  const options: KernelOptions = {
    name: manifest.name,
    model: model.model,
    tools: [...tools.tools, ...agents.tools],
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
