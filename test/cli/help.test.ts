import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from './cli-process.js';
import { useWorkspace } from './workspace.js';

/*
 * Each command's --help says what that command does and takes, and nothing of another's: the
 * store option's default as it applies to it, required options marked required (in the usage line
 * and the option's description), the exit codes it can give, one apostrophe style; and the
 * synopsis of docs/cli.md lists every command the program has.
 */

const workspace = useWorkspace();
let commands: string[];
const help: Record<string, string> = {};

beforeAll(async () => {
  const main = await runCli(['--help'], { cwd: ROOT });
  expect(main.code).toBe(0);
  help['dualloop'] = main.stdout;
  const listed = main.stdout.slice(main.stdout.indexOf('Commands:'));
  commands = [...listed.matchAll(/^ {2}([a-z]+)\b/gm)].map((match) => match[1]!).filter((name) => name !== 'help');
  await Promise.all(
    commands.map(async (command) => {
      const result = await runCli([command, '--help'], { cwd: ROOT });
      expect(result.code, command).toBe(0);
      help[command] = result.stdout;
    }),
  );
}, 60_000);

/** An option's help entry, its wrapped lines joined. */
function optionHelp(text: string, flag: string): string {
  const start = text.search(new RegExp(`^ {2}${flag}\\b`, 'm'));
  expect(start, `${flag} in:\n${text}`).toBeGreaterThanOrEqual(0);
  const rest = text.slice(start).split('\n');
  const lines = [rest[0]!, ...rest.slice(1).filter((_, index) => rest.slice(1, index + 2).every((line) => /^ {5,}\S/.test(line)))];
  return lines.map((line) => line.trim()).join(' ').replace(/\s+/g, ' ');
}

describe('dualloop --help', () => {
  it('has the 14 commands', () => {
    expect(commands.sort()).toEqual(['approve', 'audit', 'cancel', 'eval', 'fork', 'init', 'resume', 'run', 'runs', 'steer', 'submit', 'validate', 'view', 'worker']);
  });

  it("names the manifest's store.path as --store's default on run only, and :memory: there", () => {
    expect(optionHelp(help['run']!, '--store')).toMatch(/:memory: keeps the run in this process only.*\(default: the manifest's store\.path, else \.dualloop\/runs\.db\)$/);
    for (const command of ['resume', 'fork', 'runs', 'audit', 'view', 'cancel', 'steer', 'approve']) {
      const store = optionHelp(help[command]!, '--store');
      expect(store, command).toMatch(/\(default: \.dualloop\/runs\.db\)$/);
      expect(store, command).not.toMatch(/store\.path|:memory:/);
    }
  });

  it('marks required options required, in the usage line and the option', () => {
    const required = { fork: '--at <task[:turn]>', submit: '--store <url>', worker: '--store <url>', approve: '(--allow | --deny)' } as const;
    for (const [command, option] of Object.entries(required)) {
      expect(help[command]!.split('\n')[0], command).toContain(` ${option} `);
    }
    expect(optionHelp(help['fork']!, '--at')).toMatch(/^--at <task\[:turn\]> required: /);
    expect(optionHelp(help['submit']!, '--store')).toMatch(/^--store <url> required: postgres:\/\//);
    expect(optionHelp(help['worker']!, '--store')).toMatch(/^--store <url> required: postgres:\/\//);
    expect(optionHelp(help['approve']!, '--allow')).toContain('(--allow or --deny is required)');
  });

  it('submit and worker without --store exit 64 saying it is required', async () => {
    const { dir, write } = workspace();
    const manifest = write('manifest.yaml', 'name: x\n');
    for (const command of ['submit', 'worker']) {
      const result = await runCli([command, manifest], { cwd: dir });
      expect(result.stderr, command).toContain("error: required option '--store <url>' not specified");
      expect(result.code, command).toBe(64);
    }
  });

  it('ends every command with the exit codes it can give', () => {
    for (const command of ['dualloop', ...commands]) {
      const block = help[command]!.slice(help[command]!.indexOf('\nExit codes:\n'));
      expect(block, command).toMatch(/^\nExit codes:\n {2}0 {4}\S/);
      expect(block, command).toMatch(/^ {2}64 {3}\S/m);
    }
    expect(help['runs']).not.toMatch(/^ {2}130 /m);
    expect(help['validate']).not.toMatch(/^ {2}4 /m);
    expect(help['run']).toMatch(/^ {2}130 {2}canceled/m);
  });

  it('writes apostrophes one way', () => {
    for (const command of ['dualloop', ...commands]) expect(help[command], command).not.toMatch(/[’‘]/);
  });
});

describe('docs/cli.md', () => {
  it('lists every command in its synopsis', () => {
    const text = readFileSync(`${ROOT}docs/cli.md`, 'utf8');
    const synopsis = text.slice(text.indexOf('\n\n') + 2, text.indexOf('\n\n', text.indexOf('\n\n') + 2));
    const listed = new Set([...synopsis.matchAll(/^ {4}dualloop ([a-z]+)(?:\|([a-z|]+))?/gm)].flatMap((match) => [match[1]!, ...(match[2]?.split('|') ?? [])]));
    expect([...listed].sort()).toEqual([...commands].sort());
  });
});
