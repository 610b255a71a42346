import type { ELK, ElkNode } from 'elkjs/lib/elk-api.js';
import { routePoints } from './layout.js';

/** A task's box, placed: absolute coordinates in the drawing. */
export interface PlacedTask {
  readonly taskId: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface TaskGraphLayout {
  readonly width: number;
  readonly height: number;
  readonly tasks: readonly PlacedTask[];
  readonly edges: readonly { readonly source: string; readonly target: string; readonly points: readonly { readonly x: number; readonly y: number }[] }[];
}

/** A task box holds three lines: the task, its state or stop, its items (styles in web/viewer.css use these sizes). */
export const TASK_BOX = { charWidth: 7.9, lineHeight: 16, padding: 10, minChars: 18, lines: 3 } as const;

/**
 * Places a graph run's tasks left to right with ELK's layered algorithm: a task after the tasks it
 * waits for, one arrow per dependency. The shape depends only on the tasks and their
 * dependencies, so the picture stays put while their states change.
 */
export async function layoutTaskGraph(graph: { readonly tasks: readonly string[]; readonly edges: readonly { readonly source: string; readonly target: string }[] }, elk: ELK): Promise<TaskGraphLayout> {
  const height = TASK_BOX.lines * TASK_BOX.lineHeight + 2 * TASK_BOX.padding;
  const input: ElkNode = {
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.edgeRouting': 'ORTHOGONAL',
      'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
      'elk.layered.spacing.nodeNodeBetweenLayers': '48',
      'elk.spacing.nodeNode': '20',
      'elk.padding': '[top=12,left=12,bottom=12,right=12]',
    },
    children: graph.tasks.map((taskId) => ({ id: taskId, width: Math.max(TASK_BOX.minChars, taskId.length) * TASK_BOX.charWidth + 2 * TASK_BOX.padding, height })),
    edges: graph.edges.map((edge, index) => ({ id: `dependency-${index}`, sources: [edge.source], targets: [edge.target] })),
  };
  const root = await elk.layout(input);
  return {
    width: root.width ?? 0,
    height: root.height ?? 0,
    tasks: (root.children ?? []).map((node) => ({ taskId: node.id, x: node.x ?? 0, y: node.y ?? 0, width: node.width ?? 0, height: node.height ?? 0 })),
    edges: (root.edges ?? []).map((edge) => ({ source: edge.sources[0]!, target: edge.targets[0]!, points: routePoints(edge) })),
  };
}
