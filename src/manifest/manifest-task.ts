import { z } from 'zod';
import { defaultTaskId } from '../contracts/task-id.js';
import { outputJsonSchema } from '../graph/output-schema.js';
import { TaskInputSchema } from '../kernel/tasks.js';

/*
 * A task of a manifest: the API's task (`TaskInputSchema`, docs/workflows.md) with `output` as a
 * JSON Schema object — YAML has no zod — checked here, so that a bad schema is a problem on its
 * line among the manifest's other field problems. The graph itself (unknown ids, cycles,
 * placeholders, forEach sources) is the kernel's check, mapped to lines by manifest-kernel.ts.
 */

/** `output:` — a mapping that is a JSON Schema this version can check. */
const OutputJsonSchema = z
  .unknown()
  .superRefine((value, context) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      const got = value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value;
      context.addIssue({ code: 'custom', message: `must be a JSON Schema object, such as { type: object, properties: { … } } (got ${got})` });
      return;
    }
    const checked = outputJsonSchema(value);
    if ('problem' in checked) context.addIssue({ code: 'custom', message: checked.problem });
  })
  .meta({ type: 'object', description: 'A JSON Schema the final answer must match; the task output is then the parsed value (docs/workflows.md)' });

const TaskObjectSchema = TaskInputSchema().options[1];

export const ManifestTaskSchema = z.union([
  TaskInputSchema().options[0],
  TaskObjectSchema.extend({
    output: OutputJsonSchema.optional(),
    dependsOn: TaskObjectSchema.shape.dependsOn.describe('Ids of the tasks this one waits for; with dependsOn anywhere the tasks form a graph'),
    forEach: TaskObjectSchema.shape.forEach.describe('`<taskId>.output.<path>`: an array in another task’s output; the task runs once per item ({{item}})'),
    forEachFailure: TaskObjectSchema.shape.forEachFailure.describe('fail (default): one failed item fails the task; collect: the others go on'),
  }),
]);

/** Each task's id as the run will have it (`task-<n>` when not given), and whether it fans out. */
export function manifestTaskIds(tasks: readonly z.infer<typeof ManifestTaskSchema>[]): { readonly id: string; readonly forEach: boolean }[] {
  return tasks.map((task, index) =>
    typeof task === 'string' ? { id: defaultTaskId(index), forEach: false } : { id: task.id ?? defaultTaskId(index), forEach: task.forEach !== undefined },
  );
}
