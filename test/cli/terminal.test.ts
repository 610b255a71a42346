import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, NODE, ROOT } from './cli-process.js';
import { useWorkspace } from './workspace.js';

/*
 * The live view in a real terminal: tmux runs the command in a pseudo-terminal and
 * `capture-pane` returns the screen as a terminal renders it. An escape sequence that was cut
 * or malformed would show up in that text; a redraw that went wrong would leave stale lines.
 */

const workspace = useWorkspace();
const socket = `dualloop-test-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
/** Plain text of the pane and its scrollback, wrapped lines joined. */
const screen = (session: string) => tmux('capture-pane', '-p', '-J', '-S', '-500', '-t', session);

afterAll(() => {
  try {
    tmux('kill-server');
  } catch {
    // no server left
  }
});

async function until(read: () => string, done: (text: string) => boolean, what: string): Promise<string> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const text = read();
    if (done(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}; the screen was:\n${read()}`);
}

/** What is left on screen of an escape sequence that was cut: ESC itself, `^[`, or a CSI tail such as `[2K`, `[1A`, `[G`, `[?25l`. */
const BROKEN_ESCAPES = /\u001b|\^\[|\[\d*(;\d+)*[ABCDGHJKST](?![a-z])|\[\d+(;\d+)*[mhl]|\[\?\d+[hl]/;

describe('the live view on a terminal', () => {
  it('shows where the run is while it runs, then one line per task and the workflow stop, with no broken escape codes', async () => {
    const { dir } = workspace();
    const command = `'${NODE}' '${CLI}' run '${ROOT}examples/expense-report.yaml' --run-id tty-1; echo EXIT=$?; sleep 600`;
    tmux('new-session', '-d', '-s', 'live', '-x', '120', '-y', '40', '-c', dir, command);

    const running = await until(() => screen('live'), (text) => /state {2}TASK_EXECUTE/.test(text) && /turn [1-9]\/\d/.test(text), 'the status block');
    expect(running).toContain('dualloop expense-report tty-1');
    expect(running).toMatch(/task [123]\/3 (total|convert|check) "/);
    expect(running).toMatch(/turn \d\/[46] · tool calls \d+\/10 · tokens [\d,]+ · cost \$\d\.\d{4} · time [\d.]+m?s\/1m00s/);
    expect(running).toMatch(/run {4}tokens [\d,]+\/20,000 · cost \$\d\.\d{4}\/\$0\.5000 · tool calls \d+ · elapsed [\d.]+m?s\/5m00s/);
    expect(running).not.toMatch(BROKEN_ESCAPES);

    const final = await until(() => screen('live'), (text) => text.includes('EXIT='), 'the end of the run');
    expect(final).toContain('EXIT=0');
    expect(final).not.toMatch(BROKEN_ESCAPES);
    const lines = final.split('\n');
    const taskLines = lines.filter((line) => /^✓ task \d\/3 /.test(line));
    expect(taskLines.map((line) => line.split('  ')[0])).toEqual(['✓ task 1/3 total', '✓ task 2/3 convert', '✓ task 3/3 check']);
    expect(taskLines.every((line) => line.includes('  planner_stopped  the model answered without tool calls ('))).toBe(true);
    expect(final).toContain('  ↳ The four receipts total 257.80 EUR.');
    expect(lines.filter((line) => line.startsWith('✓ workflow  goal_achieved  all 3 tasks finished'))).toHaveLength(1);
    // The status block is redrawn in place and cleared at the end: no stale copy is left behind.
    expect(lines.filter((line) => line.startsWith('  state  '))).toEqual([]);
    expect(final).toContain('details: dualloop audit tty-1');
  });
});
