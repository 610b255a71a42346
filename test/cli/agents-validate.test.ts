import { describe, expect, it } from 'vitest';
import { runCli } from './cli-process.js';
import { expectRefusedByValidateAndRun } from './manifest-refusal.js';
import { useWorkspace } from './workspace.js';

/*
 * The problems of a manifest's `agents:` (docs/manifest.md, ADR/0481) through `dualloop validate`
 * and `dualloop run`: each on its line, all at once, exit 64, before any store is opened.
 */

const workspace = useWorkspace();

/** What agents name: tools, agents, guardrails, MCP tools; cycles; their own tasks and policy. */
const REFERENCES = [
  'name: references', // 1
  'model: { provider: scripted, script: ./cassette.yaml }', // 2
  'tools:', // 3
  '  builtin: [current_time]', // 4
  '  agents: [researcher, reviewr]', // 5
  'mcp:', // 6
  '  servers: { local: { command: node, args: [server.mjs] } }', // 7
  'guardrails:', // 8
  '  - { name: short, on: output, maxChars: 2000 }', // 9
  'tasks: [Write.]', // 10
  'agents:', // 11
  '  researcher:', // 12
  '    description: Researches.', // 13
  "    tasks: ['Research {{args.task}}.']", // 14
  '    tools: [calculater, local__ping, remote__search, reviewer]', // 15
  '    guardrails: [shrot]', // 16
  '    policy: { deny: [current_time] }', // 17
  '  reviewer:', // 18
  '    description: Reviews.', // 19
  '    tasks:', // 20
  '      - id: read', // 21
  '        description: Read it.', // 22
  '        dependsOn: [ghost]', // 23
  '    tools:', // 24
  '      - calculator', // 25
  '      - researcher', // 26
  '  echo:', // 27
  '    description: Repeats itself.', // 28
  '    tasks: [Again.]', // 29
  '    tools: [echo]', // 30
].join('\n');

const REFERENCE_PROBLEMS = [
  'references.yaml: 8 problems',
  '  tools.agents.1 (line 5): no agent named "reviewr" (agents: researcher, reviewer, echo; did you mean "reviewer"?)',
  '  agents.researcher.tools.0 (line 15): no tool or agent named "calculater" (tools: current_time, calculator; agents: researcher, reviewer, echo; MCP tools: local__<tool>; did you mean "calculator"?)',
  '  agents.researcher.tools.2 (line 15): no tool or agent named "remote__search" (tools: current_time, calculator; agents: researcher, reviewer, echo; MCP tools: local__<tool>)',
  '  agents.researcher.tools.3 (line 15): the agents call each other in a cycle: researcher → reviewer → researcher',
  '  agents.researcher.guardrails.0 (line 16): no guardrail named "shrot" (guardrails: short; did you mean "short"?)',
  '  agents.researcher.policy.deny.0 (line 17): no tool named "current_time" (tools: calculater, local__ping, remote__search, reviewer)',
  '  agents.reviewer.tasks.0.dependsOn.0 (line 23): task "read" depends on "ghost", which is not a task of this workflow (its tasks are "read")',
  '  agents.echo.tools.0 (line 30): agent "echo" names itself: an agent cannot call itself (a cycle echo → echo)',
];

/** What one agent says of itself: its name, its parameters, its tasks' {{args…}} placeholders. */
const PLACEHOLDERS = [
  'name: placeholders', // 1
  'model: { provider: scripted, script: ./cassette.yaml }', // 2
  'tasks: [Write.]', // 3
  'agents:', // 4
  '  researcher:', // 5
  '    description: Researches.', // 6
  '    parameters:', // 7
  '      type: object', // 8
  '      properties:', // 9
  '        topic: { type: string }', // 10
  '        where: { type: object, properties: { city: { type: string } } }', // 11
  '    tasks:', // 12
  '      - Research {{args.topc}} in {{ args.where.city }}, {{args.where.country}} and {{args}}.', // 13
  '      - id: more', // 14
  '        description: |', // 15
  '          More on {{args.}} and {{args.topic}}.', // 16
  '  helper:', // 17
  '    description: Helps with the default parameters.', // 18
  "    tasks: ['Do {{args.task}} about {{args.topic}}.']", // 19
  '  typed:', // 20
  '    description: Has parameters that are no object.', // 21
  '    parameters: { type: string }', // 22
  '    tasks: [Go.]', // 23
  '  two words:', // 24
  '    description: A name the model cannot call.', // 25
  '    tasks: [Go.]', // 26
].join('\n');

const PLACEHOLDER_PROBLEMS = [
  'placeholders.yaml: 6 problems',
  '  agents.researcher.tasks.0 (line 13): {{args.topc}} names no field of the agent\'s parameters (its fields: topic, where; did you mean {{args.topic}}?)',
  '  agents.researcher.tasks.0 (line 13): {{args.where.country}} names no field of the agent\'s parameters (its fields: topic, where)',
  '  agents.researcher.tasks.1.description (line 15): {{args.}} is not a placeholder: write {{args}} or {{args.<field>}}',
  '  agents.helper.tasks.0 (line 19): {{args.topic}} names no field of the agent\'s parameters (its fields: task)',
  '  agents.typed.parameters (line 22): must describe an object (type: object, with its properties): the arguments of a tool call are one',
  '  agents.two words (line 24): must be 1–64 letters, digits, "_" or "-" (it is the name of the tool the calling model sees)',
];

describe('a manifest’s agents’ problems', () => {
  for (const [file, text, problems] of [
    ['references.yaml', REFERENCES, REFERENCE_PROBLEMS],
    ['placeholders.yaml', PLACEHOLDERS, PLACEHOLDER_PROBLEMS],
  ] as const) {
    it(`${file}: validate and run list each one at once on its line, exit 64, and run opens no store`, async () => {
      const { write, dir } = workspace();
      write('cassette.yaml', { 'task-1': [{ text: 'done' }] });
      write(file, text);
      await expectRefusedByValidateAndRun(dir, file, problems);
    });
  }

  it('checks the manifest’s policy against the agents its tasks call and the tools of agents that inherit it, and an agent’s cassette by task against its tasks', async () => {
    const { write, dir } = workspace();
    write('cassette.yaml', { 'task-1': [{ text: 'done' }] });
    write('helper.yaml', { find: [{ text: 'found' }], fnid: [{ text: 'typo' }] });
    write('policy.yaml', {
      name: 'policy',
      model: { provider: 'scripted', script: './cassette.yaml' },
      tools: { agents: ['finder'] },
      tasks: ['Find it.'],
      policy: { allow: ['finder', 'helper'] },
      agents: {
        finder: { description: 'Finds.', tasks: [{ id: 'find', description: 'Find {{args.task}}.' }], model: { provider: 'scripted', script: './helper.yaml' } },
        helper: { description: 'Not given to the tasks.', tasks: ['Help.'], tools: ['calculator'] },
      },
    });
    const result = await runCli(['validate', 'policy.yaml'], { cwd: dir });
    expect(result.code).toBe(64);
    expect(result.stderr).toBe(
      'helper.yaml: 1 problem\n  fnid (line 3): no task "fnid" in the manifest (did you mean "find"?)\n' +
        'policy.yaml: 2 problems\n  policy.allow.1 (line 13): no tool named "helper" (tools: finder)\n' +
        '  agents.helper.tools.0 (line 28): "calculator" is not in the manifest\'s policy.allow, which this agent inherits, so every call would be denied: allow it there, or give the agent a policy of its own\n',
    );
  });

  it('refuses an agent without a model of its own when the manifest’s cassette is in call order', async () => {
    const { write, dir } = workspace();
    write('cassette.yaml', [{ text: 'done' }]);
    write('shared.yaml', ['name: shared', 'model: { provider: scripted, script: ./cassette.yaml }', 'tasks: [Write.]', 'agents:', '  helper:', '    description: Helps.', "    tasks: ['{{args.task}}']"].join('\n'));
    const result = await runCli(['validate', 'shared.yaml'], { cwd: dir });
    expect(result.code).toBe(64);
    expect(result.stderr).toBe(
      'shared.yaml: 1 problem\n' +
        "  agents.helper (line 5): has no model of its own, and the manifest's cassette ./cassette.yaml is in call order, which each run plays from its first answer: " +
        "the agent's child run would replay the manifest's answers. Give the agent a model block with a cassette of its own, or make ./cassette.yaml a cassette by task\n",
    );
  });

  it('accepts agents that call agents, MCP tools by their server, and reports them', async () => {
    const { write, dir } = workspace();
    write('cassette.yaml', { 'task-1': [{ text: 'done' }] });
    write('chain.yaml', {
      name: 'chain',
      model: { provider: 'scripted', script: './cassette.yaml' },
      mcp: { servers: { local: { command: 'node', args: ['server.mjs'] } } },
      tools: { builtin: ['calculator'], agents: ['writer'] },
      tasks: ['Write.'],
      agents: {
        writer: { description: 'Writes.', tasks: ['{{args.task}}'], tools: ['researcher', 'calculator'] },
        researcher: { description: 'Researches.', tasks: ['{{args.task}}'], tools: ['local__search', 'current_time'], policy: { allow: ['local__search'] } },
      },
    });
    const result = await runCli(['validate', 'chain.yaml'], { cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'chain.yaml: valid — "chain", 1 task, model scripted (./cassette.yaml), tools: calculator, writer (agent), agents that agents call: researcher, MCP servers (started by run): local\n',
    );
  });
});
