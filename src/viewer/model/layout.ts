import type { ELK, ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api.js';
import type { GraphNode, MachineGraph } from '../protocol.js';
import { stateEdges } from './graph-edges.js';

/** A state placed by the layout: absolute coordinates in the diagram. */
export interface PlacedState {
  readonly path: string;
  readonly key: string;
  readonly type: GraphNode['type'] | 'start';
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface PlacedEdge {
  readonly id: string;
  readonly source: string;
  readonly target: string;
  /** The route, start to end. */
  readonly points: readonly { readonly x: number; readonly y: number }[];
  readonly label: { readonly lines: readonly string[]; readonly x: number; readonly y: number } | undefined;
}

export interface MachineLayout {
  readonly width: number;
  readonly height: number;
  readonly states: readonly PlacedState[];
  readonly edges: readonly PlacedEdge[];
}

/** Text metrics of the page's monospace fonts (styles in web/viewer.css use these sizes). */
export const METRICS = { stateCharWidth: 7.9, stateHeight: 34, labelCharWidth: 6.7, labelLineHeight: 13, compoundHeader: 30 } as const;

const START = '__start__';

/**
 * Places a machine's states and transitions with ELK's layered algorithm (top to bottom,
 * orthogonal edges, compound states holding their children). Each level with an initial state
 * gets a start dot with an arrow to it, as in a statechart. Transitions from the root (from any
 * state) are not drawn here; the page lists them beside the diagram.
 */
export async function layoutMachine(graph: MachineGraph, elk: ELK): Promise<MachineLayout> {
  const toElk = (parent: string | undefined): ElkNode[] => {
    const children = graph.nodes.filter((node) => node.parent === parent);
    const nodes: ElkNode[] = children.map((node) => {
      const nested = toElk(node.path);
      const width = Math.max(84, node.key.length * METRICS.stateCharWidth + 28);
      return nested.length === 0
        ? { id: node.path, width, height: METRICS.stateHeight }
        : { id: node.path, children: nested, layoutOptions: { 'elk.padding': `[top=${METRICS.compoundHeader},left=14,bottom=14,right=14]`, 'elk.nodeSize.minimum': `(${width}, 60)` } };
    });
    if (children.some((node) => node.initial)) nodes.unshift({ id: startId(parent), width: 12, height: 12 });
    return nodes;
  };
  const edges: ElkExtendedEdge[] = stateEdges(graph).map((edge, index) => {
    const lines = [...edge.labels];
    const width = Math.max(...lines.map((line) => line.length)) * METRICS.labelCharWidth + 6;
    return { id: `edge-${index}`, sources: [edge.source], targets: [edge.target], labels: [{ text: lines.join('\n'), width, height: lines.length * METRICS.labelLineHeight + 2 }] };
  });
  for (const node of graph.nodes.filter((candidate) => candidate.initial)) edges.push({ id: `start-${node.path}`, sources: [startId(node.parent)], targets: [node.path] });

  const input: ElkNode = {
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'DOWN',
      'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
      'elk.edgeRouting': 'ORTHOGONAL',
      // The definitions list states in loop order: keep it, so the loop reads top to bottom.
      'elk.layered.cycleBreaking.strategy': 'MODEL_ORDER',
      'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
      'elk.layered.spacing.nodeNodeBetweenLayers': '36',
      'elk.spacing.nodeNode': '28',
      'elk.spacing.edgeLabel': '4',
      'elk.padding': '[top=12,left=12,bottom=12,right=12]',
    },
    children: toElk(undefined),
    edges,
  };
  const root: ElkNode = await elk.layout(input);

  const states: PlacedState[] = [];
  const offsets = new Map<string, { x: number; y: number }>([['root', { x: 0, y: 0 }]]);
  const place = (nodes: readonly ElkNode[] | undefined, origin: { x: number; y: number }) => {
    for (const node of nodes ?? []) {
      const x = origin.x + (node.x ?? 0);
      const y = origin.y + (node.y ?? 0);
      offsets.set(node.id, { x, y });
      const definition = graph.nodes.find((candidate) => candidate.path === node.id);
      states.push({ path: node.id, key: definition?.key ?? '', type: definition?.type ?? 'start', x, y, width: node.width ?? 0, height: node.height ?? 0 });
      place(node.children, { x, y });
    }
  };
  place(root.children, { x: 0, y: 0 });

  const placedEdges: PlacedEdge[] = (root.edges ?? []).map((edge) => {
    const offset = offsets.get((edge as { container?: string }).container ?? 'root') ?? { x: 0, y: 0 };
    const points = routePoints(edge, offset);
    const label = edge.labels?.[0];
    return {
      id: edge.id,
      source: edge.sources[0]!,
      target: edge.targets[0]!,
      points,
      label: label?.text === undefined ? undefined : { lines: label.text.split('\n'), x: (label.x ?? 0) + offset.x, y: (label.y ?? 0) + offset.y },
    };
  });
  return { width: root.width ?? 0, height: root.height ?? 0, states, edges: placedEdges };
}

/** An edge's route as ELK placed it, start to end, moved by `offset` (the origin of the node that holds it). */
export function routePoints(edge: ElkExtendedEdge, offset: { readonly x: number; readonly y: number } = { x: 0, y: 0 }): readonly { readonly x: number; readonly y: number }[] {
  const section = edge.sections?.[0];
  return section === undefined ? [] : [section.startPoint, ...(section.bendPoints ?? []), section.endPoint].map((point) => ({ x: point.x + offset.x, y: point.y + offset.y }));
}

function startId(parent: string | undefined): string {
  return parent === undefined ? START : `${START}${parent}`;
}
