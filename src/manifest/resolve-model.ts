import { resolve } from 'node:path';
import { withRateLimit } from '../providers/with-rate-limit.js';
import { pathOf, type ModelAt } from './model-at.js';
import type { Model } from '../contracts/model.js';
import { ConfigError, isDualloopError } from '../errors.js';
import type { OpenAIModelOptions } from '../providers/openai-model.js';
import { scriptedModel } from '../testing/scripted-model.js';
import { isCassetteByTask, loadCassette } from './cassette.js';
import { scriptByTask } from './cassette-by-task.js';
import { modelRole } from './model-role.js';
import { resolveAiSdkModel } from './resolve-ai-sdk-model.js';
import { displayPath, type LoadedManifest } from './load-manifest.js';
import type { Manifest } from './manifest-schema.js';
import { withLine, type SourceIssue } from './yaml-source.js';

export type ModelResult = { readonly model: Model; readonly issues: readonly [] } | { readonly model?: undefined; readonly issues: readonly SourceIssue[] };

type ModelBlock = Manifest['model'];
type OpenAIBlock = Extract<ModelBlock, { provider: 'openai' }>;

/** `openaiModel` option names that the manifest spells differently. */
const MANIFEST_FIELD: Readonly<Record<string, string>> = { model: 'name' };

/**
 * A model block of the manifest (`model`, or `planner`). `scripted` reads its cassette; `openai`
 * reads the key from the environment variable named by `apiKeyEnv` (the manifest holds no secret);
 * `ai-sdk` imports a module exporting an AI SDK provider model.
 */
export async function resolveModel(
  loaded: LoadedManifest,
  block: ModelBlock,
  at: ModelAt,
  environment: NodeJS.ProcessEnv = process.env,
): Promise<ModelResult> {
  const resolved = await resolveUnlimited(loaded, block, at, environment);
  // One limited instance per block: every run of this manifest's kernel shares its limit.
  return block.rateLimit === undefined || resolved.model === undefined ? resolved : { model: withRateLimit(resolved.model, block.rateLimit), issues: [] };
}

async function resolveUnlimited(loaded: LoadedManifest, block: ModelBlock, at: ModelAt, environment: NodeJS.ProcessEnv): Promise<ModelResult> {
  if (block.provider === 'scripted') {
    const path = resolve(loaded.directory, block.script);
    // Planned steps (a plan strategy's `goal`) are not known before the run: their keys are not checked.
    const role = modelRole(loaded.manifest, at);
    const cassette = await loadCassette(path, displayPath(path), role.tasks);
    if (cassette.ok) {
      if (!isCassetteByTask(cassette.value)) {
        if (role.sharedWith.length > 0) return { issues: role.sharedWith.map((agent) => withLine(loaded.source, ['agents', agent], sharedCassette(block.script))) };
        return { model: scriptedModel(cassette.value, { modelId: `cassette:${block.script}` }), issues: [] };
      }
      if (role.plans !== undefined) return { issues: [withLine(loaded.source, [...pathOf(at), 'script'], `${block.script}: a cassette by task answers the tasks' calls only, and ${role.plans}: give ${role.who} a cassette in call order (a list)`)] };
      return { model: scriptedModel(scriptByTask(cassette.value), { modelId: `cassette:${block.script}` }), issues: [] };
    }
    const missing = cassette.issues.length === 1 && cassette.issues[0]!.path === '' && cassette.issues[0]!.line === undefined;
    return { issues: missing ? [withLine(loaded.source, [...pathOf(at), 'script'], `${block.script}: ${cassette.issues[0]!.message}`)] : cassette.issues };
  }
  if (block.provider === 'ai-sdk') return resolveAiSdkModel(loaded, block, at);
  return openai(loaded, block, at, environment);
}

/** Why an agent cannot share the manifest's cassette in call order (ADR/0481). */
function sharedCassette(script: string): string {
  return (
    `has no model of its own, and the manifest's cassette ${script} is in call order, which each run plays from its first answer: ` +
    `the agent's child run would replay the manifest's answers. Give the agent a model block with a cassette of its own, or make ${script} a cassette by task`
  );
}

/**
 * The manifest is refused when the call could only fail `auth_failed`: no key in the variable the
 * block reads (`apiKeyEnv`, default OPENAI_API_KEY) and no base URL (`baseURL`, or
 * OPENAI_BASE_URL) of a server that may need none — the rule `openaiModel` applies at its first
 * call, said here, so that `validate` reports it and `run` stops before it opens a store (ADR/0404).
 */
function missingKeyIssue(loaded: LoadedManifest, block: OpenAIBlock, at: ModelAt, environment: NodeJS.ProcessEnv): SourceIssue | undefined {
  const keyEnv = block.apiKeyEnv ?? 'OPENAI_API_KEY';
  if (environment[keyEnv]?.trim() || block.baseURL !== undefined || environment['OPENAI_BASE_URL']?.trim()) return undefined;
  if (block.apiKeyEnv !== undefined) return withLine(loaded.source, [...pathOf(at), 'apiKeyEnv'], `the environment variable ${keyEnv} is not set`);
  return withLine(
    loaded.source,
    pathOf(at),
    `no API key: the environment variable ${keyEnv} is not set (set it, or name the variable that holds the key with apiKeyEnv; a local server that needs no key takes baseURL)`,
  );
}

/** The OpenAI SDK is loaded only for manifests that use it. */
async function openai(loaded: LoadedManifest, block: OpenAIBlock, at: ModelAt, environment: NodeJS.ProcessEnv): Promise<ModelResult> {
  const { provider: _provider, name, rateLimit: _limit, ...rest } = block;
  const missingKey = missingKeyIssue(loaded, block, at, environment);
  if (missingKey !== undefined) return { issues: [missingKey] };
  // `openaiModel` reads the variable itself, so its failures name the variable actually used.
  const options: OpenAIModelOptions = { model: name, ...rest };
  const { openaiModel } = await import('../providers/openai-model.js');
  try {
    return { model: openaiModel(options), issues: [] };
  } catch (error) {
    if (!isDualloopError(error, 'config_invalid')) throw error;
    return {
      issues: error.issues.map((issue) => {
        const [first = '', ...others] = issue.path.split('.');
        return withLine(loaded.source, [...pathOf(at), MANIFEST_FIELD[first] ?? first, ...others].filter((part) => part !== '' && part !== '(options)'), issue.message);
      }),
    };
  }
}
