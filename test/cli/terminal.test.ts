import xterm from '@xterm/headless';
import { describe, expect, it } from 'vitest';
import { ROOT, startCli } from './cli-process.js';
import { useWorkspace } from './workspace.js';

/*
 * The live view as a user sees it, without a pseudo-terminal: the CLI runs as a child with
 * DUALLOOP_TERMINAL forcing its terminal rendering onto the pipe, and every byte it writes goes
 * into a headless xterm.js, which applies the cursor moves and erases the way a terminal does.
 * The assertions read the emulator's screen: an escape sequence that was cut or malformed would
 * show up in that text; a redraw that went wrong would leave stale lines.
 */

const COLUMNS = 120;
const ROWS = 40;
const workspace = useWorkspace();

interface Screen {
  /** The screen and its scrollback as text, wrapped lines joined. */
  text(): Promise<string>;
}

/** Starts `dualloop ...args` with its stdout rendered by a headless terminal of COLUMNS x ROWS. */
function startOnTerminal(args: readonly string[], cwd: string) {
  // A pipe has no line discipline: convertEol does what the tty's ONLCR would (\n → \r\n).
  const terminal = new xterm.Terminal({ cols: COLUMNS, rows: ROWS, scrollback: 1_000, convertEol: true, allowProposedApi: true });
  const child = startCli(args, { cwd, env: { DUALLOOP_TERMINAL: `${COLUMNS}x${ROWS}` } });
  let parsed: Promise<void> = Promise.resolve();
  child.stdout.on('data', (chunk: string) => {
    parsed = new Promise((resolve) => terminal.write(chunk, resolve));
  });
  const screen: Screen = {
    async text() {
      await parsed;
      const buffer = terminal.buffer.active;
      const lines: string[] = [];
      for (let row = 0; row < buffer.length; row += 1) {
        const line = buffer.getLine(row);
        if (line === undefined) continue;
        const text = line.translateToString(true);
        if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
        else lines.push(text);
      }
      while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
      return lines.join('\n');
    },
  };
  return { child, screen, terminal };
}

async function until(screen: Screen, done: (text: string) => boolean, what: string): Promise<string> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const text = await screen.text();
    if (done(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}; the screen was:\n${await screen.text()}`);
}

/** What is left on screen of an escape sequence that was cut: ESC itself, `^[`, or a CSI tail such as `[2K`, `[1A`, `[G`, `[?25l`. */
const BROKEN_ESCAPES = /\u001b|\^\[|\[\d*(;\d+)*[ABCDGHJKST](?![a-z])|\[\d+(;\d+)*[mhl]|\[\?\d+[hl]/;
const statusLines = (text: string) => text.split('\n').filter((line) => line.startsWith('  state  '));

describe('the live view on a terminal', () => {
  it('redraws one status block in place while the run runs, then leaves one line per task and the workflow stop, with no broken escape codes', async () => {
    const { dir } = workspace();
    const { child, screen } = startOnTerminal(['run', `${ROOT}examples/expense-report.yaml`, '--run-id', 'tty-1'], dir);

    const running = await until(screen, (text) => /state {2}TASK_EXECUTE/.test(text) && /turn [1-9]\/\d/.test(text), 'the status block');
    expect(running).toContain('dualloop expense-report tty-1');
    expect(running).toMatch(/task [123]\/3 (total|convert|check) "/);
    expect(running).toMatch(/turn \d\/[46] · tool calls \d+\/10 · tokens [\d,]+ · cost \$\d\.\d{4} · time [\d.]+m?s\/1m00s/);
    expect(running).toMatch(/run {4}tokens [\d,]+\/20,000 · cost \$\d\.\d{4}\/\$0\.5000 · tool calls \d+ · elapsed [\d.]+m?s\/5m00s/);
    expect(running).not.toMatch(BROKEN_ESCAPES);
    // The cursor went back up over the block to redraw it: one copy on screen, however many frames were drawn.
    expect(statusLines(running)).toHaveLength(1);

    // A later frame: a task finished above the block, which moved down and was redrawn, still once.
    const later = await until(screen, (text) => text.includes('✓ task 1/3 total') && statusLines(text).length > 0, 'the first task line above the status block');
    expect(statusLines(later)).toHaveLength(1);
    const laterLines = later.split('\n');
    expect(laterLines.findIndex((line) => line.startsWith('✓ task 1/3 total'))).toBeLessThan(laterLines.findIndex((line) => line.startsWith('  state  ')));

    const result = await child.done;
    expect(result.code).toBe(0);
    const final = await screen.text();
    expect(final).not.toMatch(BROKEN_ESCAPES);
    const lines = final.split('\n');
    const taskLines = lines.filter((line) => /^✓ task \d\/3 /.test(line));
    expect(taskLines.map((line) => line.split('  ')[0])).toEqual(['✓ task 1/3 total', '✓ task 2/3 convert', '✓ task 3/3 check']);
    expect(taskLines.every((line) => line.includes('  planner_stopped  the model answered without tool calls ('))).toBe(true);
    expect(final).toContain('  ↳ The four receipts total 257.80 EUR.');
    expect(lines.filter((line) => line.startsWith('✓ workflow  goal_achieved  all 3 tasks finished'))).toHaveLength(1);
    // The status block was cleared at the end: no stale copy is left behind.
    expect(statusLines(final)).toEqual([]);
    expect(lines.at(-1)).toMatch(/^details: (npx )?dualloop audit tty-1$/);
  });

  it('on Ctrl-C (SIGINT) says it is stopping, clears the status block, ends context_canceled and offers resume (exit 130)', async () => {
    const { dir, write } = workspace();
    write('cassette.yaml', [
      { text: 'five', usage: { inputTokens: 12, outputTokens: 2 } },
      { text: 'seven', usage: { inputTokens: 14, outputTokens: 2 }, delayMs: 30_000 },
    ]);
    write('manifest.yaml', {
      name: 'two-sums',
      model: { provider: 'scripted', script: './cassette.yaml' },
      tasks: [
        { id: 'first', description: 'Add 2 and 3.' },
        { id: 'second', description: 'Add 2 to the previous result.' },
      ],
    });
    const { child, screen } = startOnTerminal(['run', 'manifest.yaml', '--run-id', 'tty-2', '--store', 'runs.db'], dir);

    await until(screen, (text) => text.includes('✓ task 1/2 first') && /task 2\/2 second "/.test(text), 'the second task in the status block');
    child.kill('SIGINT');
    const result = await child.done;
    expect(result.code).toBe(130);

    const final = await screen.text();
    expect(final).not.toMatch(BROKEN_ESCAPES);
    expect(statusLines(final)).toEqual([]);
    const lines = final.split('\n');
    expect(lines).toContain('Ctrl-C: stopping the run and keeping its checkpoint (press Ctrl-C again to exit at once)');
    expect(lines.filter((line) => line.startsWith('⊘ workflow  context_canceled  interrupted by SIGINT'))).toHaveLength(1);
    expect(lines).toContainEqual(expect.stringMatching(/^continue it with: (npx )?dualloop resume tty-2 --store runs\.db$/));
    expect(lines.at(-1)).toMatch(/^details: (npx )?dualloop audit tty-2 --store runs\.db$/);
  });
});
