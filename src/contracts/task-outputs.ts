/**
 * The TypeScript side of typed task outputs (docs/api.md, "Typed outputs"): from tasks given as a
 * literal, the type of each task's output by its id — a zod schema's output type, `unknown` for
 * a JSON Schema object, `string` for a task without `output`, an array of those for a `forEach`
 * task — carried by `WorkflowRun` and `WorkflowResult` and read with `taskOutput(result, id)`.
 * Type-only but for `taskOutput`, which needs nothing but the result (ADR/0424).
 */
import type { z } from 'zod';
import type { WorkflowResult } from './results.js';

/** Outputs by task id when nothing more is known: any id, an `unknown` output. */
export type TaskOutputs = Readonly<Record<string, unknown>>;

/** The output type of one task as given. */
type OutputOf<Task> = Task extends { readonly output: infer Schema }
  ? Schema extends z.ZodType
    ? z.output<Schema>
    : unknown
  : string;

type WithItems<Task, Output> = Task extends { readonly forEach: string } ? Output[] : Output;

/** The tasks that carry a literal `id`, each with its output type. */
type NamedOutputs<Tasks extends readonly unknown[]> = {
  readonly [Task in Tasks[number] as Task extends { readonly id: infer Id extends string } ? (string extends Id ? never : Id) : never]: WithItems<Task, OutputOf<Task>>;
};

/**
 * The outputs of a workflow's tasks by id, as inferred from the tasks (`kernel.start([...])`,
 * `runWorkflow({ tasks: [...] })`): only tasks given with a literal `id` are named. Without any,
 * it is `TaskOutputs`, so results of tasks built at run time stay usable as before.
 */
export type OutputsOf<Tasks extends readonly unknown[]> = [keyof NamedOutputs<Tasks>] extends [never] ? TaskOutputs : NamedOutputs<Tasks>;

/**
 * The output of task `id` in a result, typed from the tasks the run was started with: the parsed
 * value of a typed task (`undefined` when no answer matched its schema), the final text of any
 * other; `undefined` when the task has no result (it did not run).
 */
export function taskOutput<Outputs extends TaskOutputs, Id extends keyof Outputs & string>(result: WorkflowResult<Outputs>, id: Id): Outputs[Id] | undefined {
  // A task that ran again (resumed after a resumable stop) is listed once per run; the last is the one that counts.
  const task = result.tasks.findLast((candidate) => candidate.taskId === id);
  return task?.output as Outputs[Id] | undefined;
}
