import { describe, expect, it } from 'vitest';
import { sqliteStore } from 'dualloop';
import { isRunning, killLeftovers, serverPids } from '../support/server-pids.js';
import { parseNdjson, ROOT, runCli } from './cli-process.js';
import { useWorkspace } from './workspace.js';

/*
 * A manifest's `agents:` run through the built CLI (docs/delegation.md, ADR/0481): each agent is a
 * tool whose call is a child run in the same store, with the arguments in its tasks.
 */

const workspace = useWorkspace();
const EXAMPLE = `${ROOT}examples/research-writer.yaml`;
const DYING_SERVER = `${ROOT}test/support/mcp-dying-server.mjs`;

type Event = Record<string, any>;
const ofRun = (events: readonly Event[], runId: string) => events.filter((event) => event.runId === runId);
const toolEnds = (events: readonly Event[]) => events.filter((event) => event.type === 'tool_execution_end').map((event) => [event.name, event.isError, event.result]);

describe('a manifest with agents', () => {
  it('examples/research-writer.yaml: the writer calls its researcher, a child run of its own kept in the store, and drafts from its report', async () => {
    const { dir, path } = workspace();

    const result = await runCli(['run', EXAMPLE, '--run-id', 'writer'], { cwd: dir });

    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('stop: goal_achieved — all 1 tasks finished');
    const events = parseNdjson(result.stdout);
    const child = ofRun(events, 'writer.t0.1.0');
    expect(child.every((event) => event.path?.join(' ') === 'writer writer.t0.1.0')).toBe(true);
    expect(child.find((event) => event.type === 'task_start')?.description).toBe(
      'Research sea otters, focusing on how they keep warm without blubber. Report three facts with their numbers.',
    );
    expect(toolEnds(child)).toEqual([['calculator', false, { expression: 'round(1000000 / 6.4516)', result: 155000 }]]);

    const runs = await runCli(['runs'], { cwd: dir });
    expect(runs.code).toBe(0);
    // The child right under the run that started it, naming the call.
    expect(runs.stdout.trimEnd().split('\n').slice(1)).toEqual([
      expect.stringMatching(/^writer +research-writer .* goal_achieved +1\/1$/),
      expect.stringMatching(/^ {2}└─ writer\.t0\.1\.0 +research-writer .* goal_achieved +1\/1 +tool call call_0_0$/),
    ]);

    const store = sqliteStore({ path: path('.dualloop/runs.db') });
    try {
      expect((await store.getRun('writer.t0.1.0'))?.parent).toEqual({ runId: 'writer', toolCallId: 'call_0_0' });
      const report = (await store.loadResult('writer.t0.1.0'))?.tasks[0]?.output;
      expect(report).toMatch(/^1\. Sea otters have no blubber\. 2\. Their fur holds about 1,000,000 hairs per square inch \(155,000 per square centimetre\)/);
      const writer = await store.loadResult('writer');
      const call = writer?.tasks[0]?.turns[0]?.toolCalls[0];
      expect(call).toMatchObject({ name: 'researcher', args: { topic: 'sea otters', focus: 'how they keep warm without blubber' }, result: report, isError: false });
      expect(writer?.tasks[0]?.output).toContain('155,000 hairs per square centimetre');
      // What the child spent counts as the writer's task's: its one tool call beside the writer's own.
      expect(writer?.metrics).toMatchObject({ toolCalls: 2, inputTokens: 210 + 402 + 180 + 260, outputTokens: 32 + 58 + 27 + 61 });
    } finally {
      await store.close();
    }
  });

  it('an agent that sets nothing but its tasks takes the manifest’s model and tools (no agent) and one argument, {{args.task}}', async () => {
    const { dir, write } = workspace();
    // A cassette by task answers both runs: each run would play a cassette in call order from its start.
    write('cassette.yaml', {
      draft: [{ toolCalls: [{ name: 'helper', args: { task: 'add 2 and 3, not {{draft.output}}' } }] }, { text: 'The sum is five.' }],
      help: [{ toolCalls: [{ name: 'calculator', args: { expression: '2 + 3' } }] }, { toolCalls: [{ name: 'helper', args: { task: 'again' } }] }, { text: 'five' }],
    });
    write('defaults.yaml', {
      name: 'defaults',
      model: { provider: 'scripted', script: './cassette.yaml' },
      tools: { builtin: ['calculator'], agents: ['helper'] },
      tasks: [{ id: 'draft', description: 'Add two numbers with help.' }],
      agents: { helper: { description: 'Does what it is asked.', tasks: [{ id: 'help', description: '{{args.task}}' }] } },
    });

    const result = await runCli(['run', 'defaults.yaml', '--run-id', 'parent'], { cwd: dir });

    expect(result.code, result.stderr).toBe(0);
    const events = parseNdjson(result.stdout);
    const child = ofRun(events, 'parent.t0.1.0');
    // The argument's braces are kept from becoming a placeholder of the child's own tasks.
    expect(child.find((event) => event.type === 'task_start')?.description).toBe('add 2 and 3, not { {draft.output}}');
    expect(toolEnds(child)).toEqual([
      ['calculator', false, { expression: '2 + 3', result: 5 }],
      ['helper', true, 'unknown tool "helper" (available: calculator)'],
    ]);
    expect(toolEnds(ofRun(events, 'parent'))).toEqual([['helper', false, 'five']]);
    expect(events.at(-1)).toMatchObject({ type: 'workflow_end', runId: 'parent', stop: { reason: 'goal_achieved' } });
  });

  it('an agent’s own policy parks the caller for approval; resume --approve continues the same child run', async () => {
    const { dir, write } = workspace();
    write('cassette.yaml', {
      draft: [{ toolCalls: [{ name: 'helper', args: { task: 'add 2 and 3' } }] }, { text: 'The sum is five.' }],
      help: [{ toolCalls: [{ name: 'calculator', args: { expression: '2 + 3' } }] }, { text: 'five' }],
    });
    write('approve.yaml', {
      name: 'approve',
      model: { provider: 'scripted', script: './cassette.yaml' },
      tools: { agents: ['helper'] },
      tasks: [{ id: 'draft', description: 'Add two numbers with help.' }],
      agents: { helper: { description: 'Adds.', tasks: [{ id: 'help', description: '{{args.task}}' }], tools: ['calculator'], policy: { requireApproval: ['calculator'] } } },
    });

    const parked = await runCli(['run', 'approve.yaml', '--run-id', 'parent'], { cwd: dir });
    expect(parked.code, parked.stderr).toBe(3);
    expect(parked.stderr).toContain('awaiting approval call_help_1_0');

    const resumed = await runCli(['resume', 'parent', '--approve', 'call_help_1_0'], { cwd: dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    const events = parseNdjson(resumed.stdout);
    expect(toolEnds(ofRun(events, 'parent.t0.1.0'))).toEqual([['calculator', false, { expression: '2 + 3', result: 5 }]]);
    expect(toolEnds(ofRun(events, 'parent'))).toEqual([['helper', false, 'five']]);
    const runs = await runCli(['runs'], { cwd: dir });
    expect(runs.stdout.split('\n').filter((line) => line.includes('parent'))).toEqual([
      expect.stringMatching(/^parent +approve .* goal_achieved +1\/1$/),
      expect.stringMatching(/^ {2}└─ parent\.t0\.1\.0 .* goal_achieved +1\/1 +tool call \S+$/),
    ]);
  });

  it('an agent naming an MCP tool gets that tool only, from servers its child run starts and stops', async () => {
    const { dir, write, path } = workspace();
    const pids = path('server.pids');
    write('writer.yaml', [{ toolCalls: [{ name: 'pinger', args: { task: 'ping' } }] }, { text: 'pinged' }]);
    write('pinger.yaml', [{ toolCalls: [{ name: 'local__ping', args: {} }] }, { toolCalls: [{ name: 'local__die', args: {} }] }, { text: 'pong received' }]);
    write('mcp.yaml', {
      name: 'mcp-agent',
      model: { provider: 'scripted', script: './writer.yaml' },
      mcp: { servers: { local: { command: process.execPath, args: [DYING_SERVER, '--pid-file', pids] } } },
      tools: { agents: ['pinger'] },
      tasks: ['Ping through the agent.'],
      agents: { pinger: { description: 'Pings.', tasks: ['{{args.task}}'], model: { provider: 'scripted', script: './pinger.yaml' }, tools: ['local__ping'] } },
    });
    try {
      const result = await runCli(['run', 'mcp.yaml', '--run-id', 'mcp'], { cwd: dir });

      expect(result.code, result.stderr).toBe(0);
      const events = parseNdjson(result.stdout);
      const started = serverPids(pids);
      // The writer's run and the child run each started the server: the child's answered the ping.
      expect(started).toHaveLength(2);
      const [ping, die] = toolEnds(ofRun(events, 'mcp.t0.1.0'));
      expect(ping).toEqual(['local__ping', false, expect.stringMatching(/^pong from \d+$/)]);
      expect(started).toContain(Number(String(ping![2]).slice('pong from '.length)));
      expect(die).toEqual(['local__die', true, 'unknown tool "local__die" (available: local__ping)']);
      expect(toolEnds(ofRun(events, 'mcp'))).toEqual([['pinger', false, 'pong received']]);
      expect(started.filter(isRunning)).toEqual([]);
    } finally {
      killLeftovers(pids);
    }
  });
});
