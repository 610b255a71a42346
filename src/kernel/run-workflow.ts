import type { WorkflowResult } from '../contracts/results.js';
import { createKernel } from './create-kernel.js';
import type { KernelOptions } from './options.js';

/**
 * Runs the workflow of `options.tasks` to its end and returns the result. Throws only a
 * ConfigError for invalid options, before anything runs; every other failure is in `result.stop`.
 */
export async function runWorkflow(options: KernelOptions & { readonly runId?: string }): Promise<WorkflowResult> {
  const { runId, ...kernelOptions } = options;
  return createKernel(kernelOptions).start(undefined, runId === undefined ? {} : { runId }).result;
}
