import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseNdjson, ROOT, runCli } from './cli-process.js';
import { useWorkspace } from './workspace.js';

const workspace = useWorkspace();

/** A manifest on a cassette with no delays, in the workspace. */
function workflow(fields: Record<string, unknown>, cassette: readonly object[]): string {
  const { write } = workspace();
  write('cassette.yaml', cassette);
  return write('manifest.yaml', { name: 'test-workflow', model: { provider: 'scripted', script: './cassette.yaml' }, ...fields });
}

describe('dualloop run', () => {
  it('runs the example workflow to completion: exit 0, NDJSON events only on stdout', async () => {
    const { dir } = workspace();
    const result = await runCli(['run', `${ROOT}examples/expense-report.yaml`, '--store', 'runs.db', '--run-id', 'complete-1'], { cwd: dir });
    expect(result.code).toBe(0);
    const events = parseNdjson(result.stdout);
    expect(events[0]).toMatchObject({ type: 'workflow_start', runId: 'complete-1' });
    expect(events.at(-1)).toMatchObject({ type: 'workflow_end', stop: { reason: 'goal_achieved' }, metrics: { workflowSteps: 3, toolCalls: 5 } });
    const seqs = events.map((event) => event.seq as number);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    const taskEnds = events.filter((event) => event.type === 'task_end');
    expect(taskEnds.map((event) => [event.taskId, event.stop.reason])).toEqual([
      ['total', 'planner_stopped'],
      ['convert', 'planner_stopped'],
      ['check', 'planner_stopped'],
    ]);
    const calculator = events.find((event) => event.type === 'tool_execution_end' && event.name === 'calculator');
    expect(calculator?.result).toEqual({ expression: '18.40 + 32.00 + 142.50 + 64.90', result: 257.8 });
    expect(result.stderr).toMatch(/^details: (npx )?dualloop audit complete-1 --store runs\.db$/m);
  });

  it('stops a runaway model at the turn bound: exit 2', async () => {
    const { dir } = workspace();
    const result = await runCli(['run', `${ROOT}examples/runaway.yaml`, '--store', 'runs.db', '--json'], { cwd: dir });
    expect(result.code).toBe(2);
    const end = parseNdjson(result.stdout).at(-1);
    expect(end).toMatchObject({ type: 'workflow_end', stop: { reason: 'max_turns', bound: { name: 'maxTurns', limit: 5, value: 5 } } });
  });

  it('lets bound options override the manifest, per-task bounds included', async () => {
    const { dir } = workspace();
    const result = await runCli(['run', `${ROOT}examples/expense-report.yaml`, '--store', 'runs.db', '--max-turns', '2'], { cwd: dir });
    expect(result.code).toBe(2);
    const taskEnd = parseNdjson(result.stdout).find((event) => event.type === 'task_end');
    expect(taskEnd).toMatchObject({ taskId: 'total', stop: { reason: 'max_turns', bound: { name: 'maxTurns', limit: 2, value: 2 } } });
  });

  it('stops with the workflow tool-call bound from --max-tool-calls, and the token budget from --max-tokens', async () => {
    const { dir } = workspace();
    const calls = await runCli(['run', `${ROOT}examples/expense-report.yaml`, '--store', 'runs.db', '--max-tool-calls', '1'], { cwd: dir });
    expect(calls.code).toBe(2);
    expect(parseNdjson(calls.stdout).at(-1)?.stop.reason).toBe('max_tool_calls');
    const tokens = await runCli(['run', `${ROOT}examples/expense-report.yaml`, '--store', 'runs.db', '--max-tokens', '1000'], { cwd: dir });
    expect(tokens.code).toBe(2);
    expect(parseNdjson(tokens.stdout).at(-1)?.stop.reason).toBe('budget_exhausted');
  });

  it('stops when the policy denies a tool: exit 3', async () => {
    const manifest = workflow({ tools: { builtin: ['calculator', 'current_time'] }, tasks: ['What time is it, and what is 2 + 2?'], policy: { deny: ['calculator'] } }, [
      { toolCalls: [{ name: 'calculator', args: { expression: '2 + 2' } }] },
      { text: 'unreachable' },
    ]);
    const { dir } = workspace();
    const result = await runCli(['run', manifest, '--store', 'runs.db'], { cwd: dir });
    expect(result.code).toBe(3);
    const events = parseNdjson(result.stdout);
    expect(events).toContainEqual(expect.objectContaining({ type: 'policy_decision', decision: 'deny', toolName: 'calculator' }));
    expect(events.at(-1)).toMatchObject({ type: 'workflow_end', stop: { reason: 'policy_denied' } });
  });

  it('parks a run that needs an approval (exit 3); resume --approve continues it (exit 0)', async () => {
    const manifest = workflow({ tools: { builtin: ['calculator'] }, tasks: ['What is 6 * 7?'], policy: { requireApproval: ['calculator'] } }, [
      { toolCalls: [{ name: 'calculator', args: { expression: '6 * 7' } }] },
      { text: '42' },
    ]);
    const { dir } = workspace();
    const parked = await runCli(['run', manifest, '--store', 'runs.db', '--run-id', 'approval-1'], { cwd: dir });
    expect(parked.code).toBe(3);
    expect(parseNdjson(parked.stdout).at(-1)).toMatchObject({ stop: { reason: 'awaiting_approval' } });
    expect(parked.stderr).toContain('dualloop resume approval-1 --approve call_0_0');
    const resumed = await runCli(['resume', 'approval-1', '--store', 'runs.db', '--approve', 'call_0_0'], { cwd: dir });
    expect(resumed.stderr).not.toContain('problem');
    expect(resumed.code).toBe(0);
    const events = parseNdjson(resumed.stdout);
    expect(events.find((event) => event.type === 'tool_execution_end')?.result).toEqual({ expression: '6 * 7', result: 42 });
    expect(events.at(-1)).toMatchObject({ stop: { reason: 'goal_achieved' } });
  });

  it('ends with error (exit 4) when the model fails', async () => {
    const manifest = workflow({ tasks: ['a'] }, [{ error: 'the scripted model broke' }]);
    const { dir } = workspace();
    const result = await runCli(['run', manifest, '--store', 'runs.db'], { cwd: dir });
    expect(result.code).toBe(4);
    expect(parseNdjson(result.stdout).at(-1)).toMatchObject({ stop: { reason: 'error' } });
  });

  it('exits 64 for invalid arguments and for an invalid manifest, before creating a store', async () => {
    const { dir, write, path } = workspace();
    write('bad.yaml', 'name: x\nmodel: { provider: scripted }\ntasks: [a]\n');
    for (const args of [
      ['run', 'bad.yaml'],
      ['run', `${ROOT}examples/runaway.yaml`, '--max-turns', 'three'],
      ['run', `${ROOT}examples/runaway.yaml`, '--max-cost', '-1'],
      ['run', `${ROOT}examples/runaway.yaml`, '--bogus'],
      ['frobnicate'],
      [],
    ]) {
      const result = await runCli(args, { cwd: dir });
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 64, stdout: '' });
    }
    expect(existsSync(path('.dualloop'))).toBe(false);
    const badRunId = await runCli(['run', `${ROOT}examples/runaway.yaml`, '--run-id', 'no spaces allowed'], { cwd: dir });
    expect(badRunId).toMatchObject({ code: 64, stdout: '' });
    expect(badRunId.stderr).toContain('--run-id: must be 1–128 letters');
  });

  it('refuses a run id that is already in the store (exit 64)', async () => {
    const { dir } = workspace();
    expect((await runCli(['run', `${ROOT}examples/runaway.yaml`, '--run-id', 'twice'], { cwd: dir })).code).toBe(2);
    const again = await runCli(['run', `${ROOT}examples/runaway.yaml`, '--run-id', 'twice'], { cwd: dir });
    expect(again).toMatchObject({ code: 64, stdout: '' });
    expect(again.stderr).toContain('run twice already exists');
  });
});
