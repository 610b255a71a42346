import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from './cli-process.js';
import { useWorkspace } from './workspace.js';

/*
 * A pseudo-terminal that reports no size (0 columns, 0 rows) is what `script -qec "dualloop run …"`
 * makes where no terminal is around it (a CI job, a recorder): stdout is a TTY, so the live view
 * is chosen, but there is no width to wrap to (wrapped to 0 columns, each character took a line).
 * The command runs with its stdout made such a TTY by a preload, and prints its lines whole.
 */

const workspace = useWorkspace();
const SIZELESS = `--import=${pathToFileURL(`${ROOT}test/support/sizeless-terminal.mjs`).href}`;

describe('the live view on a terminal of no size', () => {
  it('prints plain lines: the run, each task, the stop, the hint, each whole on its line', async () => {
    const { dir, write } = workspace();
    write('cassette.yaml', [{ toolCalls: [{ name: 'calculator', args: { expression: '2 + 3' } }] }, { text: 'The sum is 5.' }, { text: 'Done.' }]);
    const manifest = write('manifest.yaml', { name: 'sizeless', model: { provider: 'scripted', script: './cassette.yaml' }, tools: { builtin: ['calculator'] }, tasks: [{ id: 'add', description: 'Add 2 and 3.' }, { id: 'report', description: 'Say done.' }] });

    const { code, stdout, stderr } = await runCli(['run', manifest, '--store', 'runs.db', '--run-id', 'sizeless-1'], { cwd: dir, env: { NODE_OPTIONS: SIZELESS } });

    expect(code, stderr).toBe(0);
    expect(stderr).toBe('');
    const lines = stdout.split('\n');
    expect(lines).toEqual([
      'dualloop sizeless sizeless-1',
      expect.stringMatching(/^✓ task 1\/2 add {2}planner_stopped {2}the model answered without tool calls \(2 turns · 1 tool call · 0 tokens · \$0\.0000 · \d+ms\)$/),
      '  ↳ The sum is 5.',
      expect.stringMatching(/^✓ task 2\/2 report {2}planner_stopped {2}the model answered without tool calls \(1 turn · 0 tool calls · 0 tokens · \$0\.0000 · \d+ms\)$/),
      '  ↳ Done.',
      '✓ workflow  goal_achieved  all 2 tasks finished',
      expect.stringMatching(/^ {2}2 tasks · 3 turns · 1 tool call · 0 tokens · \$0\.0000 · \d+ms$/),
      expect.stringMatching(/^details: (npx )?dualloop audit sizeless-1 --store runs\.db$/),
      '',
    ]);
  });
});
