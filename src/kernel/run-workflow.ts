import type { WorkflowResult } from '../contracts/results.js';
import type { OutputsOf } from '../contracts/task-outputs.js';
import { createKernel } from './create-kernel.js';
import type { KernelOptions } from './options.js';
import type { TaskInput } from './tasks.js';

/**
 * Runs the workflow of `options.tasks` to its end and returns the result. Throws only a
 * ConfigError for invalid options, before anything runs; every other failure is in `result.stop`.
 * Tasks given as a literal type the result's outputs by id (`taskOutput(result, id)`).
 */
export async function runWorkflow<const Tasks extends readonly TaskInput[] = readonly TaskInput[]>(
  options: KernelOptions & { readonly runId?: string; readonly tasks?: Tasks },
): Promise<WorkflowResult<OutputsOf<Tasks>>> {
  const { runId, ...kernelOptions } = options;
  // The outputs' types are type-only: the result is the same object.
  return createKernel(kernelOptions).start(undefined, runId === undefined ? {} : { runId }).result as Promise<WorkflowResult<OutputsOf<Tasks>>>;
}
