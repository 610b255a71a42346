import { describe, expect, it } from 'vitest';
import { runCli } from './cli-process.js';
import { expectRefusedByValidateAndRun } from './manifest-refusal.js';
import { useWorkspace } from './workspace.js';

const workspace = useWorkspace();

/** Every problem of the graph's shape: unknown and self dependencies, a cycle, forEach sources. */
const SHAPE = [
  'name: shape', // 1
  'model: { provider: scripted, script: ./cassette.yaml }', // 2
  'tasks:', // 3
  '  - id: extract', // 4
  '    description: Extract the files.', // 5
  '    output: { type: object, properties: { files: { type: array }, title: { type: string } } }', // 6
  '  - id: loop-a', // 7
  '    description: A', // 8
  '    dependsOn: [loop-b]', // 9
  '  - id: loop-b', // 10
  '    description: B', // 11
  '    dependsOn:', // 12
  '      - extract', // 13
  '      - loop-a', // 14
  '  - id: orphan', // 15
  '    description: C', // 16
  '    dependsOn: [extract, ghost, orphan]', // 17
  '  - id: titles', // 18
  '    description: D', // 19
  '    forEach: extract.output.title', // 20
  '  - id: elsewhere', // 21
  '    description: E', // 22
  '    forEach: nowhere.output.list', // 23
  '  - id: unparsed', // 24
  '    description: F', // 25
  '    forEach: extract.files', // 26
  '  - id: untyped', // 27
  '    description: G', // 28
  '    forEach: orphan.output', // 29
].join('\n');

const SHAPE_PROBLEMS = [
  'shape.yaml: 7 problems',
  '  tasks.1.dependsOn (line 9): the tasks depend on each other in a cycle: loop-a → loop-b → loop-a',
  '  tasks.3.dependsOn.1 (line 17): task "orphan" depends on "ghost", which is not a task of this workflow (its tasks are "extract", "loop-a", "loop-b", "orphan", "titles", "elsewhere", "unparsed", "untyped")',
  '  tasks.3.dependsOn.2 (line 17): task "orphan" depends on itself',
  '  tasks.4.forEach (line 20): "extract.output.title" is not an array in the output schema of task "extract"',
  '  tasks.5.forEach (line 23): forEach names "nowhere", which is not a task of this workflow',
  '  tasks.6.forEach (line 26): forEach must be "<taskId>.output" or "<taskId>.output.<path>", got "extract.files"',
  '  tasks.7.forEach (line 29): forEach needs a typed output: task "orphan" has no output schema, so "orphan.output" is not known to be an array',
];

/** Every kind of placeholder problem, a block-scalar description among them (placed at its key). */
const PLACEHOLDERS = [
  'name: placeholders', // 1
  'model: { provider: scripted, script: ./cassette.yaml }', // 2
  'tasks:', // 3
  '  - id: extract', // 4
  '    description: Extract the files.', // 5
  '    output:', // 6
  '      type: object', // 7
  '      properties: { files: { type: array, items: { type: object, properties: { path: { type: string } }, required: [path] } } }', // 8
  '      required: [files]', // 9
  '  - id: notes', // 10
  '    description: Take notes.', // 11
  '    dependsOn: [extract]', // 12
  '  - id: review', // 13
  '    description: |', // 14
  '      Review {{extract.output.files}} and {{extract.output.file}}', // 15
  '      with {{notes.output.summary}}, {{later.output}} and {{ghost.output}} and {{item}}.', // 16
  '    dependsOn: [notes]', // 17
  '  - id: later', // 18
  '    description: Later.', // 19
  '    dependsOn: [extract]', // 20
  '  - id: each', // 21
  '    description: Check {{item.path}} and {{item.size}}.', // 22
  '    forEach: extract.output.files', // 23
  '  - Summarise {{review.output}}.', // 24
].join('\n');

const PLACEHOLDER_PROBLEMS = [
  'placeholders.yaml: 7 problems',
  '  tasks.2.description (line 14): {{extract.output.file}}: the output schema of task "extract" has no "file"',
  '  tasks.2.description (line 14): {{notes.output.summary}}: task "notes" has no output schema, so its output is text without fields',
  '  tasks.2.description (line 14): {{later.output}}: task "review" does not wait for "later" (add it to dependsOn)',
  '  tasks.2.description (line 14): {{ghost.output}}: "ghost" is not a task of this workflow',
  '  tasks.2.description (line 14): task "review": {{item}} is only filled in a forEach task',
  '  tasks.4.description (line 22): task "each": {{item.size}} names a field the items of "extract.output.files" do not have',
  '  tasks.5.description (line 24): {{review.output}}: task "task-6" does not wait for "review" (add it to dependsOn)',
];

describe('a graph manifest’s problems', () => {
  for (const [file, text, problems] of [
    ['shape.yaml', SHAPE, SHAPE_PROBLEMS],
    ['placeholders.yaml', PLACEHOLDERS, PLACEHOLDER_PROBLEMS],
  ] as const) {
    it(`${file}: validate and run list each one at once on the line of its task's field, exit 64, and run opens no store`, async () => {
      const { write, dir } = workspace();
      write('cassette.yaml', { extract: [{ text: '{"files": []}' }] });
      write(file, text);
      await expectRefusedByValidateAndRun(dir, file, problems);
    });
  }

  it('places an output that is no JSON Schema and a typo in a cassette by task on their lines', async () => {
    const { write, dir } = workspace();
    write('cassette.yaml', 'extract:\n  - text: "{}"\nreprot:\n  - text: done\n');
    write('bad.yaml', ['name: bad', 'model: { provider: scripted, script: ./cassette.yaml }', 'tasks:', '  - id: extract', '    description: x', '  - id: report', '    description: y', '    output: a summary'].join('\n'));
    const schema = await runCli(['validate', 'bad.yaml'], { cwd: dir });
    expect(schema.code).toBe(64);
    expect(schema.stderr).toBe('bad.yaml: 1 problem\n  tasks.1.output (line 8): must be a JSON Schema object, such as { type: object, properties: { … } } (got string)\n');
    write('bad.yaml', ['name: bad', 'model: { provider: scripted, script: ./cassette.yaml }', 'tasks:', '  - id: extract', '    description: x', '  - id: report', '    description: y'].join('\n'));
    const cassette = await runCli(['validate', 'bad.yaml'], { cwd: dir });
    expect(cassette.code).toBe(64);
    expect(cassette.stderr).toBe('cassette.yaml: 1 problem\n  reprot (line 3): no task "reprot" in the manifest (did you mean "report"?)\n');
  });
});
