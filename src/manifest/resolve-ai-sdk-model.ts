import { resolve } from 'node:path';
import { pathOf, type ModelAt } from './model-at.js';
import { pathToFileURL } from 'node:url';
import type { Model } from '../contracts/model.js';
import { ConfigError, describeError, isDualloopError } from '../errors.js';
import type { LoadedManifest } from './load-manifest.js';
import type { Manifest } from './manifest-schema.js';
import { withLine, type SourceIssue } from './yaml-source.js';

type AiSdkBlock = Extract<Manifest['model'], { provider: 'ai-sdk' }>;

/**
 * `provider: ai-sdk`: imports the manifest's module (relative to the manifest) and adapts the AI
 * SDK provider model it exports with `aiSdkModel`. The module is the place for the provider
 * package, its key handling (`anthropic('claude-…')` reads ANTHROPIC_API_KEY) and, if wanted, an
 * OpenTelemetry SDK registration. Importing it runs its code: a manifest is trusted like a program.
 */
export async function resolveAiSdkModel(
  loaded: LoadedManifest,
  block: AiSdkBlock,
  at: ModelAt,
): Promise<{ readonly model: Model; readonly issues: readonly [] } | { readonly model?: undefined; readonly issues: readonly SourceIssue[] }> {
  const issue = (field: string, message: string) => ({ issues: [withLine(loaded.source, [...pathOf(at), field], message)] });
  let exports: Record<string, unknown>;
  try {
    exports = (await import(pathToFileURL(resolve(loaded.directory, block.module)).href)) as Record<string, unknown>;
  } catch (error) {
    return issue('module', `${block.module}: cannot be imported (${describeError(error)})`);
  }
  const names = block.export === undefined ? ['default', 'model'] : [block.export];
  const name = names.find((candidate) => exports[candidate] !== undefined);
  if (name === undefined) return issue(block.export === undefined ? 'module' : 'export', `${block.module} exports no ${names.map((candidate) => `"${candidate}"`).join(' or ')}`);
  const { aiSdkModel } = await import('../providers/ai-sdk-model.js');
  try {
    const options = { ...(block.pricing === undefined ? {} : { pricing: block.pricing }), ...(block.maxRetries === undefined ? {} : { maxRetries: block.maxRetries }) };
    return { model: aiSdkModel(exports[name] as never, options), issues: [] };
  } catch (error) {
    if (!isDualloopError(error, 'config_invalid')) throw error;
    return { issues: error.issues.map((problem) => withLine(loaded.source, [...pathOf(at), problem.path.startsWith('options.') ? problem.path.slice('options.'.length).split('.')[0]! : 'module'], `${block.module} export "${name}": ${problem.path} ${problem.message}`)) };
  }
}
