import { FailureError } from '../errors.js';
import type { GraphEdge, GraphNode, InvokedActor, MachineGraph, MachineGraphs } from './protocol.js';

const INDENT = '    ';

/**
 * A machine as a Mermaid `stateDiagram-v2`, from its graph (src/viewer/machine-graph.ts). States
 * are named by their keys (the machines' keys are unique, which this checks) and described by
 * their entry and exit actions and the transitions that keep them (`on EVENT / actions`); one arrow
 * per transition label; transitions declared on the root become notes: they apply from any state.
 */
export function toMermaid(graph: MachineGraph): string {
  const keys = new Map<string, string>();
  for (const node of graph.nodes) {
    const other = keys.get(node.key);
    if (other !== undefined) throw new FailureError({ code: 'internal_error', message: `${graph.id}: states ${other} and ${node.path} share the key ${node.key}; Mermaid needs unique names` });
    keys.set(node.key, node.path);
  }
  const keyOf = (path: string) => graph.nodes.find((node) => node.path === path)?.key ?? path;
  const parentOf = (path: string) => graph.nodes.find((node) => node.path === path)?.parent;
  const lines = ['stateDiagram-v2'];

  const block = (parent: string | undefined, depth: number) => {
    const pad = INDENT.repeat(depth);
    const children = graph.nodes.filter((node) => node.parent === parent);
    for (const node of children.filter((child) => child.initial)) lines.push(`${pad}[*] --> ${node.key}`);
    for (const node of children) {
      if (node.entry.length > 0) lines.push(`${pad}${node.key} : entry / ${node.entry.join(', ')}`);
      if (node.exit.length > 0) lines.push(`${pad}${node.key} : exit / ${node.exit.join(', ')}`);
      for (const transition of graph.targetless.filter((candidate) => candidate.source === node.path)) lines.push(`${pad}${node.key} : on ${spelled(transition.label, transition.actions)}`);
    }
    for (const node of children.filter((child) => child.type === 'compound' || child.type === 'parallel')) {
      lines.push(`${pad}state ${node.key} {`);
      block(node.path, depth + 1);
      lines.push(`${pad}}`);
    }
    // An arrow lives in the block of the state that holds both its ends; others go to the top.
    for (const edge of graph.edges) {
      if (edge.source === '') continue;
      const home = parentOf(edge.source) === parentOf(edge.target) ? parentOf(edge.source) : undefined;
      if (home !== parent) continue;
      for (const label of spelledOut(edge)) lines.push(`${pad}${keyOf(edge.source)} --> ${keyOf(edge.target)} : ${label}`);
    }
    for (const node of children.filter((child) => child.type === 'final')) lines.push(`${pad}${node.key} --> [*]`);
  };
  block(undefined, 1);

  for (const edge of graph.edges.filter((candidate) => candidate.source === '')) {
    lines.push(`${INDENT}note left of ${keyOf(edge.target)}`);
    lines.push(`${INDENT}${INDENT}from any state:`);
    for (const label of spelledOut(edge)) lines.push(`${INDENT}${INDENT}${label}`);
    lines.push(`${INDENT}end note`);
  }
  const anyState = graph.targetless.filter((transition) => transition.source === '');
  const initial = graph.nodes.find((node) => node.parent === undefined && node.initial);
  if (anyState.length > 0 && initial !== undefined) {
    lines.push(`${INDENT}note right of ${initial.key}`);
    lines.push(`${INDENT}${INDENT}in any state, without leaving it:`);
    for (const transition of anyState) lines.push(`${INDENT}${INDENT}${spelled(transition.label, transition.actions)}`);
    lines.push(`${INDENT}end note`);
  }
  return lines.join('\n');
}

/** docs/diagrams.md: both machines as Mermaid, with what each state invokes. */
export function diagramsMarkdown(graphs: MachineGraphs): string {
  const names = (actions: readonly string[]) => actions.map((name) => `\`${name}\``).join(', ');
  const section = (title: string, source: string, graph: MachineGraph) => {
    // The exit column appears only for a machine that has exit actions.
    const exits = graph.nodes.some((node) => node.exit.length > 0);
    return [
      `## ${title}`,
      '',
      `From \`${source}\` (machine id \`${graph.id}\`).${graph.entry.length === 0 ? '' : ` On start it runs ${names(graph.entry)}.`}${graph.invokes.length === 0 ? '' : ` The machine itself invokes ${graph.invokes.map(actorText).join(', ')}: they live as long as it does.`}`,
      '',
      '```mermaid',
      toMermaid(graph),
      '```',
      '',
      exits ? '| state | type | on entry | on exit | invokes |' : '| state | type | on entry | invokes |',
      exits ? '|---|---|---|---|---|' : '|---|---|---|---|',
      ...graph.nodes.map((node) => `| \`${node.path}\` | ${stateType(node)} | ${names(node.entry)} | ${exits ? `${names(node.exit)} | ` : ''}${node.invokes.map(actorText).join(', ')} |`),
      '',
    ];
  };
  return [
    '# The two machines',
    '',
    '<!-- Generated from the machine definitions by `npm run diagrams` (scripts/generate-diagrams.mjs). Do not edit:',
    '     test/viewer/diagrams.test.ts fails when this file no longer matches machines/*.machine.ts. -->',
    '',
    'Both diagrams are drawn from the definitions in `machines/`: every state and every transition.',
    'A label reads `event (guard) / actions`: `X done` / `X error` are the invoked actor `X` answering or',
    'failing, `after X` a delayed transition, `always` an eventless one; `(name)` is the named guard that',
    'decides the transition (`(guarded)` an inline one), and the names after `/` the actions it runs, in',
    'order. A state\'s `entry /` line lists what it does when entered, its `exit /` line what it does when',
    'left (whichever transition leaves it, a stop from any state included). Every guard and action is named in',
    'the machine\'s `setup()`, so these names are the spec. A state\'s `on` lines are transitions without a',
    'target: they run their actions and the machine stays in that state (`TOOL_STARTED` counts started',
    'tools). Notes list the transitions declared on the machine itself, which apply from any state: those',
    'that lead to a state (`from any state:`), and those that only run actions (`in any state, without',
    'leaving it:`, like `STEER`). The local viewer (`dualloop view`, docs/viewer.md) draws the same',
    'states and arrows, with the events and guards (the actions are left out there to keep it legible).',
    '',
    ...section('Outer loop: the workflow machine', 'machines/workflow.machine.ts', graphs.workflow),
    ...section('Inner loop: the turn machine', 'machines/turn.machine.ts', graphs.turn),
  ].join('\n');
}

/** An edge's transitions as `event (guard) / action, action`. */
function spelledOut(edge: GraphEdge): string[] {
  return edge.labels.map((label, index) => spelled(label, edge.actions[index] ?? []));
}

/** One transition as `event (guard) / action, action`. */
function spelled(label: string, actions: readonly string[]): string {
  return actions.length === 0 ? label : `${label} / ${actions.join(', ')}`;
}

function actorText(actor: InvokedActor): string {
  return actor.id === actor.src ? `\`${actor.id}\`` : `\`${actor.id}\` (${actor.src})`;
}

function stateType(node: GraphNode): string {
  return node.initial ? `${node.type}, initial` : node.type;
}
