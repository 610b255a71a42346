/**
 * `dualloop eval` as a user runs it: the docs' example end to end (record three runs, evaluate a
 * candidate that fails one case, read the table, gate CI), --json, the exit codes, problems named
 * on their lines, an interrupted eval finished by running it again, and the same on Postgres.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { NODE, ROOT, runCli, startCli } from './cli-process.js';
import { useWorkspace } from './workspace.js';
import { storeKinds } from '../control/control-stores.js';
// The example's own recording, as docs/evals.md runs it.
import { recordCapitals } from '../../examples/evals/record.mjs';

const workspace = useWorkspace();

const EXAMPLE = join(ROOT, 'examples/evals');
const SUITE = join(EXAMPLE, 'suite.yaml');
const MANIFEST = join(EXAMPLE, 'capitals.yaml');

/** A fresh directory holding runs.db, with the example's three runs recorded by its script. */
function recordedExample(): string {
  const { dir } = workspace();
  const recorded = spawnSync(NODE, [join(EXAMPLE, 'record.mjs'), 'runs.db'], { cwd: dir, encoding: 'utf8' });
  expect(recorded.stderr).toBe('');
  expect(recorded.stdout).toBe('capital-france: goal_achieved, answered Paris\ncapital-japan: goal_achieved, answered Tokyo\ncapital-peru: goal_achieved, answered Lima\n');
  return dir;
}

describe('dualloop eval', () => {
  it('runs the docs example: one case fails, the table says which and why, the gate exits 1', async () => {
    const dir = recordedExample();
    const gated = await runCli(['eval', SUITE, '--store', 'runs.db', '--fail-under', 'outputEquals=0.9'], { cwd: dir });
    expect(gated.code).toBe(1);
    // docs/evals.md shows this very table.
    const docs = readFileSync(join(ROOT, 'docs/evals.md'), 'utf8');
    expect(/### Reading the table\n\n```text\n([\s\S]*?)```/.exec(docs)?.[1]).toBe(gated.stdout);
    // …and this very suite.
    expect(parse(/\n```yaml\n(suite: [\s\S]*?)```/.exec(docs)?.[1] ?? '')).toEqual(parse(readFileSync(SUITE, 'utf8')));
    const lines = gated.stdout.split('\n');
    expect(lines[0]).toMatch(/^CASE +STOP \(baseline → candidate\) +TURNS +TOOLS +COST +OUTPUT +DIVERGES +stopReasonMatches +outputEquals +toolTrajectoryMatches +costWithin$/);
    expect(lines[1]).toMatch(/^capital-france +goal_achieved → goal_achieved +2 → 2 +1 → 1 +\$0\.0004 → \$0\.0002 +same +1\.00 +1\.00 +1\.00 +1\.00$/);
    expect(lines[3]).toMatch(/^capital-peru +goal_achieved → goal_achieved +2 → 1 +1 → 0 +\$0\.0004 → \$0\.0001 +changed +turn 1 +1\.00 +0\.00 +0\.00 +1\.00$/);
    expect(gated.stdout).toContain('  capital-peru · outputEquals 0.00: got "Cusco", expected "Lima"');
    expect(gated.stdout).toContain('3/3 cases evaluated · candidate $0.0005 (baseline $0.0012) · tools recorded');
    expect(gated.stdout).toMatch(/^mean outputEquals +0\.667  < 0\.9 FAIL$/m);
    expect(gated.stderr).toContain('[3/3] capital-peru: goal_achieved · stopReasonMatches 1.00, outputEquals 0.00');

    // Run again: every case is read back from the store, nothing runs, the gate passes at 0.6.
    const passed = await runCli(['eval', SUITE, '--store', 'runs.db', '--fail-under', 'outputEquals=0.6', '--fail-under', 'stopReasonMatches=1', '--json'], { cwd: dir });
    expect(passed.code).toBe(0);
    const report = JSON.parse(passed.stdout);
    expect(report).toMatchObject({ suite: 'cheaper-model', tools: 'recorded', stop: 'completed', means: { outputEquals: 0.666667, toolTrajectoryMatches: 0.666667 }, gates: [{ scorer: 'outputEquals', threshold: 0.6, mean: 0.666667, passed: true }, { scorer: 'stopReasonMatches', threshold: 1, mean: 1, passed: true }] });
    expect(report.cases[2]).toMatchObject({ name: 'capital-peru', baseline: { output: 'Lima', toolCalls: 1 }, candidate: { runId: 'cheaper-model.capital-peru', output: 'Cusco', toolCalls: 0 }, outputChanged: true, divergedAt: 1 });

    const runs = JSON.parse((await runCli(['runs', '--store', 'runs.db', '--json'], { cwd: dir })).stdout) as { runId: string; evalOf?: unknown }[];
    expect(runs.filter((run) => run.evalOf !== undefined).map((run) => [run.runId, run.evalOf])).toEqual([
      ['cheaper-model.capital-peru', { runId: 'capital-peru', suite: 'cheaper-model' }],
      ['cheaper-model.capital-japan', { runId: 'capital-japan', suite: 'cheaper-model' }],
      ['cheaper-model.capital-france', { runId: 'capital-france', suite: 'cheaper-model' }],
    ]);
    // An eval run is an ordinary run: the audit reads it.
    const audit = await runCli(['audit', 'cheaper-model.capital-peru', '--store', 'runs.db'], { cwd: dir });
    expect(audit.code).toBe(0);
    expect(audit.stdout).toContain('eval of capital-peru in suite cheaper-model');
  });

  it('picks cases by a runs filter, from a JSONL file and at a fork point', async () => {
    const dir = recordedExample();
    const { write } = workspace();
    write('cases.jsonl', `${JSON.stringify({ name: 'asked', tasks: [{ id: 'japan', description: 'What is the capital of Japan?' }], expected: 'Tokyo' })}\n\n${JSON.stringify({ runId: 'capital-france', name: 'france-again' })}\n`);
    write('mixed.yaml', {
      suite: 'mixed',
      manifest: MANIFEST,
      candidate: { model: { provider: 'scripted', script: join(EXAMPLE, 'candidate.cassette.yaml') } },
      cases: [{ runs: { name: 'capitals', stop: 'goal_achieved', limit: 2 } }, { file: 'cases.jsonl' }, { run: 'capital-japan', at: '1:2', name: 'japan-answer' }],
      scorers: ['outputEquals'],
    });
    const result = await runCli(['eval', 'mixed.yaml', '--store', 'runs.db', '--json'], { cwd: dir });
    expect(result.stderr).not.toContain('dualloop:');
    const report = JSON.parse(result.stdout);
    // Newest first: peru and japan; then the file's two; then Japan from its second turn: the look-up is the recording's, the answer the candidate's.
    expect(report.cases.map((entry: { name: string; candidate: { output: string }; scores: { score: number }[] }) => [entry.name, entry.candidate.output, entry.scores[0]!.score])).toEqual([
      ['capital-peru', 'Cusco', 0],
      ['capital-japan', 'Tokyo', 1],
      ['asked', 'Tokyo', 1],
      ['france-again', 'Paris', 1],
      ['japan-answer', 'Tokyo', 1],
    ]);
    expect(result.code).toBe(0);

    write('empty.yaml', { suite: 'empty', manifest: MANIFEST, cases: [{ runs: { name: 'nothing-by-this-name' } }, { file: 'missing.jsonl' }], scorers: ['outputEquals'] });
    const empty = await runCli(['eval', 'empty.yaml', '--store', 'runs.db'], { cwd: dir });
    expect(empty.code).toBe(64);
    expect(empty.stderr).toContain('cases.0.runs (line 4): no finished run in the store matches {"name":"nothing-by-this-name"}');
    expect(empty.stderr).toMatch(/cases\.1\.file \(line 6\): missing\.jsonl cannot be read \(ENOENT\)/);
  });

  it('says what is wrong, on its line, before running anything (exit 64)', async () => {
    const dir = recordedExample();
    const { write } = workspace();
    write('bad-suite.yaml', `suite: nightly run\nmanifest: ${MANIFEST}\ncandidate:\n  model: { provider: scripted, script: ./nowhere.yaml }\ntools: replayed\ncases:\n  - run: capital-france\nscorers:\n  - { name: costWithin }\n`);
    const bad = await runCli(['eval', 'bad-suite.yaml', '--store', 'runs.db'], { cwd: dir });
    expect(bad.code).toBe(64);
    expect(bad.stderr).toBe(
      [
        'bad-suite.yaml: 3 problems',
        '  suite (line 1): must be 1–64 letters, digits, ".", "_" or "-"',
        '  tools (line 5): must be one of "recorded", "recorded-or-live", "live"',
        '  scorers.0.ratio (line 9): required',
        '',
      ].join('\n'),
    );

    write('no-cassette.yaml', `suite: nightly\nmanifest: ${MANIFEST}\ncandidate:\n  model: { provider: scripted, script: ./nowhere.yaml }\ncases:\n  - run: capital-atlantis\nscorers: [outputEquals]\n`);
    const noCassette = await runCli(['eval', 'no-cassette.yaml', '--store', 'runs.db'], { cwd: dir });
    expect(noCassette.code).toBe(64);
    expect(noCassette.stderr).toMatch(/candidate\.model\.script \(line 4\): \S*nowhere\.yaml: /);

    write('missing-run.yaml', `suite: nightly\nmanifest: ${MANIFEST}\ncases:\n  - run: capital-atlantis\nscorers: [outputEquals]\n`);
    const missing = await runCli(['eval', 'missing-run.yaml', '--store', 'runs.db'], { cwd: dir });
    expect(missing.code).toBe(64);
    expect(missing.stderr).toContain('cases.0.runId: no run "capital-atlantis" in the sqlite store');

    const gate = await runCli(['eval', SUITE, '--store', 'runs.db', '--fail-under', 'accuracy=0.9'], { cwd: dir });
    expect(gate.code).toBe(64);
    expect(gate.stderr).toContain('--fail-under accuracy: the suite has no scorer by that name (it has stopReasonMatches, outputEquals, toolTrajectoryMatches, costWithin)');
    const threshold = await runCli(['eval', SUITE, '--store', 'runs.db', '--fail-under', 'outputEquals=90'], { cwd: dir });
    expect(threshold.code).toBe(64);
    expect(threshold.stderr).toContain('--fail-under outputEquals=90: expected <scorer>=<mean between 0 and 1>');
  });

  it('an interrupted eval exits 130; the same command finishes it without running a finished case again', async () => {
    const dir = recordedExample();
    const { write } = workspace();
    // Japan's first answer takes a while: Ctrl-C lands while it is in flight.
    write('slow.cassette.yaml', {
      france: [{ toolCalls: [{ name: 'country_facts', args: { country: 'France' } }] }, { text: 'Paris' }],
      japan: [{ toolCalls: [{ name: 'country_facts', args: { country: 'Japan' } }], delayMs: 2_000 }, { text: 'Tokyo' }],
      peru: [{ toolCalls: [{ name: 'country_facts', args: { country: 'Peru' } }] }, { text: 'Lima' }],
    });
    write('slow-suite.yaml', { suite: 'slow', manifest: MANIFEST, candidate: { model: { provider: 'scripted', script: './slow.cassette.yaml' } }, cases: [{ run: 'capital-france' }, { run: 'capital-japan' }, { run: 'capital-peru' }], scorers: ['outputEquals'] });
    const child = startCli(['eval', 'slow-suite.yaml', '--store', 'runs.db', '--json'], { cwd: dir });
    await new Promise<void>((resolve) => {
      let seen = '';
      child.stderr.on('data', (chunk: string) => {
        seen += chunk;
        if (seen.includes('[1/3] capital-france')) resolve();
      });
    });
    child.kill('SIGINT');
    const interrupted = await child.done;
    expect(interrupted.code).toBe(130);
    const first = JSON.parse(interrupted.stdout);
    expect(first.stop).toBe('context_canceled');
    expect(first.cases.map((entry: { status: string }) => entry.status)).toEqual(['evaluated', 'skipped', 'skipped']);
    expect(interrupted.stderr).toContain('run the same command again to finish the suite');

    const finished = await runCli(['eval', 'slow-suite.yaml', '--store', 'runs.db', '--json'], { cwd: dir });
    expect(finished.code).toBe(0);
    const second = JSON.parse(finished.stdout);
    expect(second.cases.map((entry: { status: string }) => entry.status)).toEqual(['evaluated', 'evaluated', 'evaluated']);
    expect(second.means).toEqual({ outputEquals: 1 });
    // France was read back, not run again: the same run, to its stop time.
    expect(second.cases[0]).toEqual(first.cases[0]);
  });

  describe.each(storeKinds())('on $name', (kind) => {
    it('evaluates runs recorded in the store --store names', async () => {
      const pair = kind.open();
      try {
        await recordCapitals(pair.runner);
        const { dir } = workspace();
        const result = await runCli(['eval', SUITE, '--store', pair.target, '--json', '--fail-under', 'toolTrajectoryMatches=0.9'], { cwd: dir });
        expect(result.code).toBe(1);
        const report = JSON.parse(result.stdout);
        expect(report.cases.map((entry: { name: string; scores: { score: number }[] }) => [entry.name, entry.scores.map((score) => score.score)])).toEqual([
          ['capital-france', [1, 1, 1, 1]],
          ['capital-japan', [1, 1, 1, 1]],
          ['capital-peru', [1, 0, 0, 1]],
        ]);
        expect(await pair.sender.getRun('cheaper-model.capital-japan')).toMatchObject({ evalOf: { runId: 'capital-japan', suite: 'cheaper-model' } });
      } finally {
        await pair.close();
      }
    });
  });
});
