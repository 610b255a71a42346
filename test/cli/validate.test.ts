import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from './cli-process.js';
import { useWorkspace } from './workspace.js';

const workspace = useWorkspace();

describe('dualloop validate', () => {
  it('accepts the example manifests', async () => {
    for (const manifest of ['examples/expense-report.yaml', 'examples/runaway.yaml']) {
      const result = await runCli(['validate', manifest], { cwd: ROOT });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`${manifest}: valid`);
    }
  });

  it('reports every problem at once, each with its YAML path and line, and exits 64', async () => {
    const { write, dir } = workspace();
    write(
      'bad.yaml',
      [
        'name: broken', // 1
        'model:', // 2
        '  provider: scripted', // 3
        '  scrip: ./cassette.yaml', // 4
        'tools:', // 5
        '  builtin: [calculator, read_file]', // 6
        'tasks:', // 7
        '  - Add two numbers', // 8
        '  - { description: second, bounds: { maxTurns: 0 } }', // 9
        'bounds:', // 10
        '  inner:', // 11
        '    maxTurns: -1', // 12
        '    maxToolCall: 3', // 13
        'policy: { allow: [calculator], maxCostUsd: 0 }', // 14
        'toolExecution: fast', // 15
      ].join('\n'),
    );
    const result = await runCli(['validate', 'bad.yaml'], { cwd: dir });
    expect(result.code).toBe(64);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toEqual([
      'bad.yaml: 8 problems',
      '  model.script (line 3): required',
      '  model.scrip (line 4): unknown field (did you mean "script"?)',
      '  tools.builtin.1 (line 6): must be "calculator", "current_time", or an object such as { name: read_file, root: ./data }',
      '  tasks.1.bounds.maxTurns (line 9): must be > 0',
      '  bounds.inner.maxTurns (line 12): must be > 0',
      '  bounds.inner.maxToolCall (line 13): unknown field (did you mean "maxToolCalls"?)',
      '  policy.maxCostUsd (line 14): must be > 0',
      '  toolExecution (line 15): must be one of "sequential", "parallel", "batch"',
    ]);
  });

  it('reports a YAML syntax error with its line', async () => {
    const { write, dir } = workspace();
    write('syntax.yaml', 'name: x\nmodel:\n  provider: scripted\ntasks:\n  - a\n  - b: [\n');
    const result = await runCli(['validate', 'syntax.yaml'], { cwd: dir });
    expect(result.code).toBe(64);
    expect(result.stderr).toMatch(/^syntax\.yaml: 1 problem\n {2}\(document\) \(line \d\): .+\n$/);
  });

  it('checks what the manifest points at: the cassette, tool directories, policy tool names', async () => {
    const { write, dir } = workspace();
    write('cassette.yaml', '- text: hi\n  toolCalls: [{ nam: calculator }]\n- usage: { inputTokens: -1, outputTokens: 2 }\n');
    write(
      'refs.yaml',
      [
        'name: refs', // 1
        'model: { provider: scripted, script: ./cassette.yaml }', // 2
        'tools:', // 3
        '  builtin: [calculator, { name: read_file, root: ./no-such-dir }]', // 4
        '  # a missing tools.module is checked in failure-messages.test.ts', // 5
        'tasks: [a]', // 6
        'policy: { deny: [shell] }', // 7
      ].join('\n'),
    );
    const result = await runCli(['validate', 'refs.yaml'], { cwd: dir });
    expect(result.code).toBe(64);
    expect(result.stderr).toContain('refs.yaml: 2 problems\n');
    expect(result.stderr).toContain('  tools.builtin.1.root (line 4): ./no-such-dir: directory not found\n');
    expect(result.stderr).toContain('  policy.deny.0 (line 7): no tool named "shell" (tools: calculator)\n');
    expect(result.stderr).toContain('cassette.yaml: 3 problems\n');
    expect(result.stderr).toContain('  0.toolCalls.0.name (line 2): required\n');
    expect(result.stderr).toContain('  0.toolCalls.0.nam (line 2): unknown field (did you mean "name"?)\n');
    expect(result.stderr).toContain('  1.usage.inputTokens (line 3): must be >= 0\n');
  });

  it('names a missing cassette at the manifest line that refers to it', async () => {
    const { write, dir } = workspace();
    write('m.yaml', 'name: m\nmodel:\n  provider: scripted\n  script: ./nowhere.yaml\ntasks: [a]\n');
    const result = await runCli(['validate', 'm.yaml'], { cwd: dir });
    expect(result.code).toBe(64);
    expect(result.stderr).toBe('m.yaml: 1 problem\n  model.script (line 4): ./nowhere.yaml: file not found\n');
  });

  it('exits 64 for a manifest that does not exist, and for a missing argument', async () => {
    const { dir } = workspace();
    const missing = await runCli(['validate', 'nope.yaml'], { cwd: dir });
    expect(missing.code).toBe(64);
    expect(missing.stderr).toBe('nope.yaml: 1 problem\n  (document): file not found\n');
    const noArgument = await runCli(['validate'], { cwd: dir });
    expect(noArgument.code).toBe(64);
    expect(noArgument.stderr).toContain("missing required argument 'manifest'");
  });

  it('says that a file is not a manifest (package.json), for validate and run alike, and exits 64', async () => {
    const { dir } = workspace();
    for (const command of ['validate', 'run']) {
      const result = await runCli([command, `${ROOT}package.json`], { cwd: dir });
      expect(result.code).toBe(64);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^\S+package\.json: 1 problem\n {2}\(document\) \(line 1\): not a dualloop manifest: it has no model and no tasks, and \d+ of its \d+ fields are not manifest fields \(version, description, type, …\); `dualloop init` writes a starter manifest\n$/);
    }
    expect(existsSync(join(dir, '.dualloop'))).toBe(false);
  });

  it('reports duplicate task ids with the line of the second one', async () => {
    const { write, dir } = workspace();
    write('cassette.yaml', [{ text: 'done' }]);
    write('dup.yaml', 'name: dup\nmodel: { provider: scripted, script: ./cassette.yaml }\ntasks:\n  - { id: sum, description: a }\n  - { id: sum, description: b }\n');
    const result = await runCli(['validate', 'dup.yaml'], { cwd: dir });
    expect(result.code).toBe(64);
    expect(result.stderr).toBe('dup.yaml: 1 problem\n  tasks.1.id (line 5): duplicate task id "sum" (also tasks.0)\n');
  });
});
