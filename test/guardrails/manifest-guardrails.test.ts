/**
 * Guardrails in a manifest: `maxChars`, `denyPatterns` (dangerous patterns refused at validate
 * time, with their line), `jsonSchema` and `judge` (a scripted judge answering PASS or FAIL,
 * charged to the task); a trip ends the run with exit code 3 and shows in the audit.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/cli-process.js';
import { useWorkspace } from '../cli/workspace.js';

const workspace = useWorkspace();

function manifest(guardrails: unknown[], tasks: unknown[] = [{ id: 'answer', description: 'Answer the question.' }], extra: Record<string, unknown> = {}) {
  return { name: 'guarded', model: { provider: 'scripted', script: 'cassette.yaml' }, tasks, guardrails, ...extra };
}

describe('manifest guardrails', () => {
  it('validate refuses a pattern that can backtrack for ever, an unknown name and a guardrail without a check, each on its line (exit 64)', async () => {
    const { dir, write } = workspace();
    write('cassette.yaml', [{ text: 'fine' }]);
    write(
      'workflow.yaml',
      manifest(
        [
          { name: 'nested', on: 'output', denyPatterns: ['(a+)+$'] },
          { name: 'backref', on: 'output', denyPatterns: ['(x)\\1'] },
          { name: 'empty', on: 'output' },
        ],
        [{ id: 'answer', description: 'Answer.', guardrails: ['nested', 'missing'] }],
      ),
    );
    const result = await runCli(['validate', 'workflow.yaml'], { cwd: dir });
    expect(result.code).toBe(64);
    expect(result.stderr).toMatch(/guardrails\.0\.denyPatterns\.0 \(line \d+\): the pattern "\(a\+\)\+\$" repeats a group that repeats itself/);
    expect(result.stderr).toMatch(/guardrails\.1\.denyPatterns\.0 \(line \d+\): the pattern .* uses a backreference/);
    expect(result.stderr).toMatch(/guardrails\.2 \(line \d+\): must have exactly one of maxChars, denyPatterns, jsonSchema, judge \(it has none\)/);
  });

  it('validate names a task guardrail the manifest does not have', async () => {
    const { dir, write } = workspace();
    write('cassette.yaml', [{ text: 'fine' }]);
    write('workflow.yaml', manifest([{ name: 'short', on: 'output', maxChars: 10 }], [{ id: 'answer', description: 'Answer.', guardrails: ['missing'] }]));
    const result = await runCli(['validate', 'workflow.yaml'], { cwd: dir });
    expect(result.code).toBe(64);
    expect(result.stderr).toMatch(/tasks\.0\.guardrails\.0 \(line \d+\): unknown guardrail "missing" \(known: short\)/);
  });

  it('a denied pattern trips the output guardrail: exit 3, the stop and the audit name it', async () => {
    const { dir, write } = workspace();
    write('cassette.yaml', [{ text: 'the key is sk-abcdefghijklmnopqrstu' }]);
    write('workflow.yaml', manifest([{ name: 'no-keys', on: 'output', denyPatterns: ['/SK-[a-z]{20}/i'] }]));
    const run = await runCli(['run', 'workflow.yaml', '--run-id', 'keys', '--store', 'runs.db'], { cwd: dir });
    expect(run.code).toBe(3);
    expect(run.stdout + run.stderr).toContain('guardrail_tripped');
    const audit = await runCli(['audit', 'keys', '--store', 'runs.db'], { cwd: dir });
    expect(audit.stdout).toContain('guardrail "no-keys" (output) tripped: matches the denied pattern /SK-[a-z]{20}/i');
    expect(audit.stdout).toMatch(/guardrails\n {2}no-keys +output \(answer turn 1\), stop: matches the denied pattern/);
  });

  it('maxChars and jsonSchema: a long answer is sent back once (revise), a short one passes the schema', async () => {
    const { dir, write } = workspace();
    write('cassette.yaml', [{ text: JSON.stringify({ verdict: 'yes', notes: 'x'.repeat(200) }) }, { text: '{"verdict": "yes"}' }]);
    write(
      'workflow.yaml',
      manifest([
        { name: 'short', on: 'output', mode: 'revise', maxChars: 100 },
        { name: 'shape', on: 'output', jsonSchema: { type: 'object', properties: { verdict: { enum: ['yes', 'no'] } }, required: ['verdict'] } },
      ]),
    );
    const run = await runCli(['run', 'workflow.yaml', '--run-id', 'shape', '--store', 'runs.db', '--json'], { cwd: dir });
    expect(run.code).toBe(0);
    const audit = JSON.parse((await runCli(['audit', 'shape', '--store', 'runs.db', '--json'], { cwd: dir })).stdout);
    expect(audit.guardrailTrips.map((trip: { name: string; mode: string; reason: string }) => [trip.name, trip.mode, trip.reason])).toEqual([['short', 'revise', '228 characters, more than maxChars=100']]);
  });

  it('a judge with its own scripted model answers FAIL: the task stops with its reason, and its tokens are the task\'s', async () => {
    const { dir, write } = workspace();
    write('cassette.yaml', [{ text: 'Buy our product now!', usage: { inputTokens: 10, outputTokens: 5 } }]);
    write('judge.yaml', [{ text: 'FAIL: it is an advertisement', usage: { inputTokens: 100, outputTokens: 3 } }]);
    write('workflow.yaml', manifest([{ name: 'no-ads', on: 'output', judge: { prompt: 'Is the text free of advertising?', model: { provider: 'scripted', script: 'judge.yaml' } } }]));
    const run = await runCli(['run', 'workflow.yaml', '--run-id', 'judged', '--store', 'runs.db'], { cwd: dir });
    expect(run.code).toBe(3);
    const audit = JSON.parse((await runCli(['audit', 'judged', '--store', 'runs.db', '--json'], { cwd: dir })).stdout);
    expect(audit.tasks[0].stop.guardrail).toEqual({ name: 'no-ads', on: 'output', reason: 'it is an advertisement' });
    expect(audit.tasks[0].counters).toMatchObject({ inputTokens: 110, outputTokens: 8 });
    expect(audit.workflow.metrics).toMatchObject({ inputTokens: 110, outputTokens: 8 });
  });
});
