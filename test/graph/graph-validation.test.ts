import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, createKernel, type TaskInput } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';

function issuesOf(tasks: readonly TaskInput[]): { path: string; message: string }[] {
  const kernel = createKernel({ model: scriptedModel([]) });
  try {
    kernel.start(tasks);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return [...(error as ConfigError).issues];
  }
  throw new Error('start() accepted the tasks');
}

describe('a graph is checked before the run starts', () => {
  it('names a cycle from its first task back to it', () => {
    const issues = issuesOf([
      { id: 'a', description: 'x', dependsOn: ['c'] },
      { id: 'b', description: 'y', dependsOn: ['a'] },
      { id: 'c', description: 'z', dependsOn: ['b'] },
    ]);
    expect(issues).toEqual([{ path: 'tasks.0.dependsOn', message: 'the tasks depend on each other in a cycle: a → c → b → a' }]);
  });

  it('names an unknown dependency and a task that depends on itself, every one at once', () => {
    const issues = issuesOf([
      { id: 'a', description: 'x', dependsOn: ['a'] },
      { id: 'b', description: 'y', dependsOn: ['nope'] },
    ]);
    expect(issues.map((issue) => issue.path)).toEqual(['tasks.0.dependsOn.0', 'tasks.1.dependsOn.0']);
    expect(issues[0]!.message).toBe('task "a" depends on itself');
    expect(issues[1]!.message).toContain('"nope", which is not a task of this workflow');
  });

  it('refuses placeholders that name a task not waited for, a field the schema lacks, or fields of text', () => {
    const issues = issuesOf([
      { id: 'extract', description: 'x', output: z.object({ files: z.array(z.string()) }) },
      { id: 'free', description: 'y' },
      { id: 'report', description: 'use {{extract.output.filez}}, {{free.output.title}} and {{later.output}}', dependsOn: ['extract', 'free'] },
      { id: 'later', description: 'z', dependsOn: ['report'] },
    ]);
    expect(issues.map((issue) => issue.message)).toEqual([
      '{{extract.output.filez}}: the output schema of task "extract" has no "filez"',
      '{{free.output.title}}: task "free" has no output schema, so its output is text without fields',
      '{{later.output}}: task "report" does not wait for "later" (add it to dependsOn)',
    ]);
  });

  it('takes transitive dependencies and, in a list, every earlier task', () => {
    const kernel = createKernel({ model: scriptedModel([]) });
    expect(() =>
      kernel.start([
        { id: 'a', description: 'x', output: z.object({ n: z.number() }) },
        { id: 'b', description: 'y', dependsOn: ['a'] },
        { id: 'c', description: 'n is {{a.output.n}}', dependsOn: ['b'] },
      ]),
    ).not.toThrow();
    expect(() => kernel.start(['one', 'after {{task-1.output}}'])).not.toThrow();
    expect(issuesOf(['one {{task-2.output}}', 'two'])[0]!.message).toBe('{{task-2.output}}: task "task-1" does not wait for "task-2" (add it to dependsOn)');
  });

  it('fans out only over an array of a typed output, and checks {{item.path}} against its items', () => {
    const files = z.object({ files: z.array(z.object({ path: z.string() })), title: z.string() });
    expect(issuesOf([{ id: 'a', description: 'x' }, { id: 'b', description: 'y', forEach: 'a.output' }])[0]!.message).toContain('task "a" has no output schema');
    expect(issuesOf([{ id: 'a', description: 'x', output: files }, { id: 'b', description: 'y', forEach: 'a.output.title' }])[0]!.message).toBe(
      '"a.output.title" is not an array in the output schema of task "a"',
    );
    expect(issuesOf([{ id: 'a', description: 'x', output: files }, { id: 'b', description: '{{item.path}} {{item.size}}', forEach: 'a.output.files' }])).toEqual([
      { path: 'tasks.1.description', message: 'task "b": {{item.size}} names a field the items of "a.output.files" do not have' },
    ]);
    expect(issuesOf([{ id: 'a', description: 'x {{item}}' }])[0]!.message).toBe('task "a": {{item}} is only filled in a forEach task');
  });

  it('refuses an output that JSON Schema cannot express, naming the task', () => {
    const issues = issuesOf([{ id: 'a', description: 'x', output: z.date() }]);
    expect(issues[0]!.path).toBe('tasks.0.output');
  });
});
