// `dualloop approve --allow --args JSON` and `--deny --message TEXT` on SQLite and Postgres: the
// arguments are checked against the tools of the manifest the run was started with, before they are stored.
import { describe, expect, it } from 'vitest';
import type { ControlChannel } from 'dualloop';
import { parseNdjson, runCli } from '../cli/cli-process.js';
import { useWorkspace } from '../cli/workspace.js';
import { storeKinds } from './control-stores.js';

const workspace = useWorkspace();

/** A manifest whose calculator call parks for approval, on a cassette. */
function parkingManifest(): string {
  const { write } = workspace();
  write('cassette.yaml', [{ toolCalls: [{ name: 'calculator', args: { expression: '6 * 7' } }] }, { text: 'done' }]);
  return write('manifest.yaml', {
    name: 'approvals',
    model: { provider: 'scripted', script: './cassette.yaml' },
    tools: { builtin: ['calculator'] },
    tasks: ['What is 6 * 7?'],
    policy: { requireApproval: ['calculator'] },
  });
}

describe.each(storeKinds())('dualloop approve with --args / --message against $name', ({ open }) => {
  it('refuses invalid JSON, arguments the tool refuses and misplaced flags (64); runs the edited call on resume; the audit shows both', async () => {
    const { sender, target, close } = open();
    try {
      const { dir } = workspace();
      const manifest = parkingManifest();
      const parked = await runCli(['run', manifest, '--store', target, '--run-id', 'calc'], { cwd: dir });
      expect(parked.code, parked.stderr).toBe(3);

      const notJson = await runCli(['approve', 'calc', '--allow', '--args', '{expression:', '--store', target], { cwd: dir });
      expect(notJson.code).toBe(64);
      expect(notJson.stderr).toContain('--args is not JSON');
      const refused = await runCli(['approve', 'calc', '--allow', '--args', '{"expression": 7, "extra": true}', '--store', target], { cwd: dir });
      expect(refused.code).toBe(64);
      expect(refused.stderr).toContain('answer.args.expression');
      expect(refused.stderr).toContain('tool "calculator"');
      const misplaced = await runCli(['approve', 'calc', '--deny', '--args', '{}', '--store', target], { cwd: dir });
      expect(misplaced.code).toBe(64);
      expect(misplaced.stderr).toContain('--args goes with --allow');
      expect(((await (sender as unknown as ControlChannel).approvalAnswers('calc')) as ReadonlyMap<string, unknown>).size).toBe(0);

      const approved = await runCli(['approve', 'calc', '--allow', '--args', '{"expression": "6 * 8"}', '--store', target], { cwd: dir });
      expect(approved, approved.stderr).toMatchObject({ code: 0 });
      expect(approved.stdout).toContain('approval call_0_0 of run calc: allowed with the arguments {"expression":"6 * 8"}; it applies when the run is resumed');

      const resumed = await runCli(['resume', 'calc', '--store', target], { cwd: dir });
      expect(resumed.code, resumed.stderr).toBe(0);
      const end = parseNdjson(resumed.stdout).find((event) => event.type === 'tool_execution_end');
      expect(end).toMatchObject({ result: { expression: '6 * 8', result: 48 }, executedArgs: { expression: '6 * 8' } });

      const audit = await runCli(['audit', 'calc', '--store', target], { cwd: dir });
      expect(audit.code).toBe(0);
      expect(audit.stdout).toContain('calculator {"expression":"6 * 7"} → edited {"expression":"6 * 8"}');
      expect(audit.stdout).toContain('[approval call_0_0, args edited to {"expression":"6 * 8"}]');
    } finally {
      await close();
    }
  });

  it('--deny --message stores what the model is told; resume gives it as the tool’s error result', async () => {
    const { target, close } = open();
    try {
      const { dir } = workspace();
      const manifest = parkingManifest();
      expect((await runCli(['run', manifest, '--store', target, '--run-id', 'calc-deny'], { cwd: dir })).code).toBe(3);
      const denied = await runCli(['approve', 'calc-deny', '--deny', '--message', 'use a smaller number', '--store', target], { cwd: dir });
      expect(denied, denied.stderr).toMatchObject({ code: 0 });
      expect(denied.stdout).toContain('denied; the model is told: "use a smaller number"');
      const resumed = await runCli(['resume', 'calc-deny', '--store', target], { cwd: dir });
      expect(resumed.code, resumed.stderr).toBe(0);
      const end = parseNdjson(resumed.stdout).find((event) => event.type === 'tool_execution_end');
      expect(end).toMatchObject({ result: 'use a smaller number', isError: true, executed: false });
      const audit = await runCli(['audit', 'calc-deny', '--store', target], { cwd: dir });
      expect(audit.stdout).toContain('the model was told: "use a smaller number"');
    } finally {
      await close();
    }
  });
});
