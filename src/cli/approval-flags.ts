/**
 * `dualloop approve`'s answer from its flags (`--allow [--args JSON]`, `--deny [--message TEXT]`),
 * and the run's tools to check `--args` against: those of the manifest the run was started with
 * (its launch record, or `--manifest`). A run no manifest describes has its `--args` checked by
 * the resume that applies them (docs/operations.md).
 */
import type { ApprovalAnswer } from '../contracts/policy.js';
import type { Tool, ToolSource } from '../contracts/tool.js';
import { formatIssue } from '../manifest/yaml-source.js';
import { launchManifest } from './launch-manifest.js';
import { prepareManifest } from './prepare-manifest.js';
import type { CommandStore } from './store-target.js';

export interface ApprovalFlags {
  readonly allow: boolean;
  /** `--args`: the arguments the call runs with instead of the model's, as JSON. */
  readonly args?: string;
  /** `--message`: what the model is told instead of the call's result. */
  readonly message?: string;
}

export function answerFromFlags(flags: ApprovalFlags): { readonly answer: ApprovalAnswer } | { readonly problem: string } {
  if (flags.allow) {
    if (flags.message !== undefined) return { problem: '--message goes with --deny (it is what the model is told); --allow takes --args' };
    if (flags.args === undefined) return { answer: 'approve' };
    try {
      return { answer: { decision: 'approve', args: JSON.parse(flags.args) as unknown } };
    } catch (error) {
      return { problem: `--args is not JSON: ${(error as Error).message}` };
    }
  }
  if (flags.args !== undefined) return { problem: '--args goes with --allow (the arguments the call runs with); --deny takes --message' };
  return { answer: flags.message === undefined ? 'reject' : { decision: 'reject', message: flags.message } };
}

/**
 * The tools of the run's manifest, to check edited arguments before they are stored; `undefined`
 * when no manifest describes the run (they are then checked on resume).
 */
export async function manifestTools(opened: CommandStore, runId: string, manifest: string | undefined, cwd: string): Promise<{ readonly tools?: readonly (Tool | ToolSource)[] } | { readonly problem: string }> {
  const launch = await launchManifest(opened, runId, manifest);
  if ('problem' in launch) return manifest === undefined ? {} : launch;
  const prepared = await prepareManifest(launch.path, launch.overrides, cwd);
  if (!prepared.ok) return { problem: `cannot check --args against ${launch.path}:\n  ${prepared.issues.map(formatIssue).join('\n  ')}` };
  return { tools: prepared.value.options.tools ?? [] };
}
