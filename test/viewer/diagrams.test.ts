import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { assign, createMachine } from 'xstate';
import { getStateNodes, toDirectedGraph } from 'xstate/graph';
import { describe, expect, it } from 'vitest';
import { turnMachine } from '../../machines/turn.machine.js';
import { workflowMachine } from '../../machines/workflow.machine.js';
import { kernelMachineGraphs, machineGraph } from '../../src/viewer/machine-graph.js';
import { diagramsMarkdown, toMermaid } from '../../src/viewer/mermaid.js';

const DIAGRAMS = fileURLToPath(new URL('../../docs/diagrams.md', import.meta.url));

describe('docs/diagrams.md', () => {
  it('matches the machine definitions (regenerate with `npm run diagrams`)', () => {
    const committed = readFileSync(DIAGRAMS, 'utf8');
    const generated = `${diagramsMarkdown(kernelMachineGraphs())}\n`;
    expect(committed, 'docs/diagrams.md is out of date: run `npm run diagrams` and commit the result').toBe(generated);
  });
});

describe('machineGraph', () => {
  it.each([
    ['workflow', workflowMachine],
    ['turn', turnMachine],
  ] as const)('%s: has every state and every targeted transition xstate/graph finds', (_name, machine) => {
    const graph = machineGraph(machine);
    const statePaths = getStateNodes(machine.root).map((node) => node.path.join('.'));
    expect(graph.nodes.map((node) => node.path).sort()).toEqual(statePaths.sort());
    const edges = new Set(graph.edges.map((edge) => `${edge.source}→${edge.target}`));
    const walk = (node: ReturnType<typeof toDirectedGraph>): string[] => [
      ...node.edges
        .filter((edge) => edge.transition.target !== undefined)
        .map((edge) => `${edge.source.path.join('.')}→${edge.target.path.join('.')}`),
      ...node.children.flatMap(walk),
    ];
    for (const edge of walk(toDirectedGraph(machine))) expect(edges).toContain(edge);
  });

  it('keeps eventless transitions, which xstate/graph leaves out', () => {
    const graph = machineGraph(turnMachine);
    expect(graph.edges).toContainEqual({ source: 'OBSERVE', target: 'CHECK_STOP', labels: ['always'], actions: [[]] });
    expect(graph.edges).toContainEqual({ source: 'NEXT_TURN', target: 'TURN_INIT', labels: ['always'], actions: [[]] });
  });

  it('names transitions by event, actor answers by actor id, guards and actions by name', () => {
    const { workflow, turn } = kernelMachineGraphs();
    expect(workflow.edges).toContainEqual({ source: 'TASK_EXECUTE', target: 'CHECKPOINT', labels: ['always (taskEnded)'], actions: [[]] });
    expect(workflow.edges).toContainEqual({
      source: 'TASK_SELECT.GATE',
      target: 'DONE',
      labels: ['policyGate done', 'policyGate error'],
      actions: [['stopOnGateRefusal'], ['stopOnActorError']],
    });
    expect(workflow.edges).toContainEqual({
      source: '',
      target: 'DONE',
      labels: ['ABORT (idle)', 'task error', 'task.* error', 'after sessionDeadline (idle)'],
      actions: [['stopOnAbort'], ['stopOnActorError'], ['stopOnActorError'], ['stopAtSessionDeadline']],
    });
    expect(workflow.nodes.find((node) => node.path === 'CHECKPOINT')?.invokes).toEqual([{ id: 'checkpointer', src: 'checkpointer' }]);
    expect(turn.nodes.find((node) => node.path === 'OBSERVE')?.entry).toEqual(['observeToolResults']);
    expect(turn.nodes.find((node) => node.path === 'COMPACT')?.exit).toEqual(['reportCompactionEnd']);
    expect(turn.edges).toContainEqual({ source: 'TURN_INIT', target: 'COMPACT', labels: ['always (needsCompaction)'], actions: [[]] });
    expect(turn.edges).toContainEqual({ source: 'CHECK_STOP', target: 'WRAP_UP', labels: ['STOP_DECIDED (wrapUpDue)'], actions: [['closeTurn']] });
  });

  it('writes each transition as `event (guard) / actions` in the Mermaid chart, and each state’s entry actions', () => {
    const chart = toMermaid(machineGraph(turnMachine));
    expect(chart).toContain('PLAN --> ACT : MODEL_DONE (hasToolCalls) / recordModelResult');
    expect(chart).toContain('ACT --> OBSERVE : TOOLS_DONE');
    expect(chart).toContain('OBSERVE : entry / observeToolResults');
    expect(chart).toContain('WRAP_UP : entry / beginWrapUp, callModel');
    expect(chart).toContain('COMPACT : entry / requestCompaction\n    COMPACT : exit / reportCompactionEnd');
    expect(chart).toContain('        CANCEL / stopOnCancel');
  });

  it('keeps transitions without a target apart, and writes them as `on` lines of their state or a note of the machine', () => {
    const { workflow, turn } = kernelMachineGraphs();
    expect(turn.targetless).toContainEqual({ source: 'ACT', label: 'TOOL_STARTED', actions: ['countStartedTool'] });
    expect(workflow.targetless).toContainEqual({ source: '', label: 'ABORT (tasksRunning)', actions: ['holdAbortStop', 'cancelTasks'] });
    expect(workflow.targetless).toContainEqual({ source: '', label: 'task done', actions: ['recordTaskEnd'] });
    expect(workflow.edges.flatMap((edge) => edge.labels)).not.toContain('ABORT (tasksRunning)');
    expect(toMermaid(turn)).toContain('    ACT : on TOOL_STARTED / countStartedTool');
    expect(toMermaid(workflow)).toContain('    note right of INIT\n        in any state, without leaving it:\n        ABORT (tasksRunning) / holdAbortStop, cancelTasks');
  });

  it('shows inline guards and actions as such, and leaves out the timers of delayed transitions', () => {
    const machine = createMachine({
      id: 'm',
      initial: 'A',
      states: { A: { after: { 10: 'B' }, on: { GO: { guard: () => true, target: 'B', actions: assign({}) } } }, B: { entry: 'named', type: 'final' } },
    });
    const graph = machineGraph(machine);
    expect(graph.edges).toContainEqual({ source: 'A', target: 'B', labels: ['GO (guarded)', 'after 10'], actions: [['inline assign'], []] });
    expect(graph.nodes.find((node) => node.path === 'A')?.entry).toEqual([]);
    expect(graph.nodes.find((node) => node.path === 'A')?.exit).toEqual([]);
    expect(graph.nodes.find((node) => node.path === 'B')?.entry).toEqual(['named']);
  });

  it('changes the diagram when a machine changes', () => {
    const before = toMermaid(machineGraph(createMachine({ id: 'm', initial: 'A', states: { A: { on: { GO: 'B' } }, B: { type: 'final' } } })));
    const after = toMermaid(machineGraph(createMachine({ id: 'm', initial: 'A', states: { A: { on: { GO: 'C' } }, C: { type: 'final' } } })));
    expect(before).toContain('A --> B : GO');
    expect(after).toContain('A --> C : GO');
    expect(after).not.toBe(before);
  });

  it('refuses machines whose state keys repeat (Mermaid names states by key)', () => {
    const machine = createMachine({ id: 'm', initial: 'A', states: { A: { initial: 'X', states: { X: {} } }, B: { initial: 'X', states: { X: {} } } } });
    expect(() => toMermaid(machineGraph(machine))).toThrow(/share the key X/);
  });
});
