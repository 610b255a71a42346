import { useEffect, useState } from 'preact/hooks';
import { activePaths } from '../model/active-states.js';
import { anyStateEdges } from '../model/graph-edges.js';
import { layoutMachine, METRICS, type MachineLayout, type PlacedState } from '../model/layout.js';
import type { MachineGraph } from '../protocol.js';
import { elk } from './elk.js';

interface Props {
  readonly title: string;
  readonly graph: MachineGraph;
  /** The active state's path, undefined when the machine is not running. */
  readonly active: string | undefined;
  /** What the machine is running for (e.g. the task), shown under the title. */
  readonly subject?: string;
}

/** One machine, laid out by ELK from its definition, with the active state (and its ancestors) highlighted. */
export function MachineDiagram({ title, graph, active, subject }: Props) {
  const [layout, setLayout] = useState<MachineLayout | undefined>(undefined);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  useEffect(() => {
    layoutMachine(graph, elk).then(setLayout, (error: unknown) => setFailure(String(error)));
  }, [graph]);
  const activeSet = new Set(activePaths(active));
  const fromAnyState = anyStateEdges(graph);
  return (
    <section class="machine" data-machine={graph.id} data-active-state={active ?? ''}>
      <header>
        <h2>{title}</h2>
        <span class="state-now" data-testid={`${graph.id}-state`}>
          {active ?? 'not running'}
        </span>
        {subject === undefined ? null : <span class="subject">{subject}</span>}
      </header>
      {failure !== undefined ? <p class="error">layout failed: {failure}</p> : null}
      {layout === undefined ? (
        failure === undefined ? <p class="loading">laying out…</p> : null
      ) : (
        <svg viewBox={`0 0 ${Math.ceil(layout.width)} ${Math.ceil(layout.height)}`} width={Math.ceil(layout.width)} role="img" aria-label={`${graph.id} machine`}>
          <defs>
            <marker id={`arrow-${graph.id}`} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead" />
            </marker>
          </defs>
          {layout.states.filter((state) => state.type === 'compound').map((state) => stateShape(state, activeSet))}
          {layout.edges.map((edge) => (
            <g class={`transition${activeSet.has(edge.source) ? ' from-active' : ''}`} key={edge.id}>
              <path d={edge.points.map((point, index) => `${index === 0 ? 'M' : 'L'} ${point.x} ${point.y}`).join(' ')} marker-end={`url(#arrow-${graph.id})`} />
              {edge.label === undefined ? null : (
                <text x={edge.label.x + 3} y={edge.label.y + METRICS.labelLineHeight - 2} class="transition-label">
                  {edge.label.lines.map((line, index) => (
                    <tspan x={edge.label!.x + 3} dy={index === 0 ? 0 : METRICS.labelLineHeight} key={line}>
                      {line}
                    </tspan>
                  ))}
                </text>
              )}
            </g>
          ))}
          {layout.states.filter((state) => state.type !== 'compound').map((state) => stateShape(state, activeSet))}
        </svg>
      )}
      {fromAnyState.length === 0 ? null : (
        <ul class="any-state">
          {fromAnyState.map((edge) => (
            <li key={edge.target}>
              from any state → <b>{edge.target}</b>: {edge.labels.join(', ')}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function stateShape(state: PlacedState, active: ReadonlySet<string>) {
  if (state.type === 'start') return <circle key={state.path} class="start" cx={state.x + state.width / 2} cy={state.y + state.height / 2} r={state.width / 2} />;
  const isActive = active.has(state.path);
  const compound = state.type === 'compound';
  return (
    <g key={state.path} class={`state ${state.type}${isActive ? ' active' : ''}`} data-state={state.path} data-active={isActive ? 'true' : 'false'}>
      <rect x={state.x} y={state.y} width={state.width} height={state.height} rx={compound ? 10 : 8} />
      {state.type === 'final' ? <rect class="final-ring" x={state.x + 3} y={state.y + 3} width={state.width - 6} height={state.height - 6} rx={6} /> : null}
      <text x={compound ? state.x + 12 : state.x + state.width / 2} y={compound ? state.y + 20 : state.y + state.height / 2 + 5} class={compound ? 'state-label compound-label' : 'state-label'}>
        {state.key}
      </text>
    </g>
  );
}
