import { useEffect, useState } from 'preact/hooks';
import { layoutTaskGraph, TASK_BOX, type PlacedTask, type TaskGraphLayout } from '../model/task-graph-layout.js';
import type { TaskGraphModel, TaskNode } from '../model/task-graph.js';
import { elk } from './elk.js';
import { reasonClass } from './stop-tree.js';

interface Props {
  /** The graph as the cursor leaves it. */
  readonly graph: TaskGraphModel;
  /** The tasks' ids and dependencies, which decide the layout (they do not change while the run runs). */
  readonly shape: { readonly tasks: readonly string[]; readonly edges: TaskGraphModel['edges'] };
}

/**
 * A graph run's tasks, laid out by ELK from their dependencies: each box shows the task, its
 * turn machine's state while it runs or its stop once it ended (coloured as in the stop tree), and
 * a fan-out task's items.
 */
export function TaskGraphPanel({ graph, shape }: Props) {
  const [layout, setLayout] = useState<TaskGraphLayout | undefined>(undefined);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  useEffect(() => {
    layoutTaskGraph(shape, elk).then(setLayout, (error: unknown) => setFailure(String(error)));
  }, [shape]);
  const nodes = new Map(graph.nodes.map((node) => [node.taskId, node]));
  const running = graph.nodes.filter((node) => node.state === 'running').length;
  return (
    <section class="task-graph">
      <header>
        <h2>tasks</h2>
        <span class="subject" data-testid="tasks-running">
          {running} running · {graph.nodes.filter((node) => node.state === 'ended' || node.state === 'kept').length}/{graph.nodes.length} ended
        </span>
      </header>
      {failure !== undefined ? <p class="error">layout failed: {failure}</p> : null}
      {layout === undefined ? (
        failure === undefined ? <p class="loading">laying out…</p> : null
      ) : (
        <svg viewBox={`0 0 ${Math.ceil(layout.width)} ${Math.ceil(layout.height)}`} width={Math.ceil(layout.width)} role="img" aria-label="task graph">
          <defs>
            <marker id="arrow-tasks" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead" />
            </marker>
          </defs>
          {layout.edges.map((edge) => (
            <path
              key={`${edge.source}->${edge.target}`}
              class={`dependency${nodes.get(edge.source)?.state === 'ended' ? ' met' : ''}`}
              data-source={edge.source}
              data-target={edge.target}
              d={edge.points.map((point, index) => `${index === 0 ? 'M' : 'L'} ${point.x} ${point.y}`).join(' ')}
              marker-end="url(#arrow-tasks)"
            />
          ))}
          {layout.tasks.map((placed) => {
            const node = nodes.get(placed.taskId);
            return node === undefined ? null : taskBox(placed, node);
          })}
        </svg>
      )}
    </section>
  );
}

function taskBox(placed: PlacedTask, node: TaskNode) {
  const tone = node.stop === undefined || node.state === 'running' ? node.state : reasonClass(node.stop.reason);
  const line = (index: number) => placed.y + TASK_BOX.padding + TASK_BOX.lineHeight * (index + 1) - 4;
  const x = placed.x + TASK_BOX.padding;
  return (
    <g key={placed.taskId} class={`task-node ${node.state} ${tone}`} data-task-id={node.taskId} data-state={node.state} data-reason={node.stop?.reason ?? ''}>
      <title>{node.stop === undefined ? node.taskId : `${node.taskId}: ${node.stop.reason} — ${node.stop.detail}`}</title>
      <rect x={placed.x} y={placed.y} width={placed.width} height={placed.height} rx={8} />
      <text x={x} y={line(0)} class="task-name">
        {node.index + 1} {node.taskId}
      </text>
      <text x={x} y={line(1)} class="task-state">
        {stateText(node)}
      </text>
      <text x={x} y={line(2)} class="task-items">
        {itemsText(node)}
      </text>
    </g>
  );
}

function stateText(node: TaskNode): string {
  switch (node.state) {
    case 'running':
      return node.turnState === undefined ? 'running' : `${node.turnState} · turn ${node.turn}`;
    case 'ended':
      return node.stop?.reason ?? 'ended';
    case 'kept':
      return 'kept from the source';
    case 'waiting':
      return 'waiting';
  }
}

function itemsText(node: TaskNode): string {
  if (node.forEach === undefined) return '';
  if (node.items.length === 0) return `for each of ${node.forEach}`;
  const ended = node.items.filter((item) => item.state === 'ended').length;
  return `${node.items.length} items · ${ended} ended`;
}
