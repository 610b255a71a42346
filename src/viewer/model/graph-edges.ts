import type { GraphEdge, MachineGraph } from '../protocol.js';

/** The edges a reader follows from state to state, without the root's from-any-state ones. */
export function stateEdges(graph: MachineGraph): readonly GraphEdge[] {
  return graph.edges.filter((edge) => edge.source !== '');
}

/** The root's transitions: they apply from any state. */
export function anyStateEdges(graph: MachineGraph): readonly GraphEdge[] {
  return graph.edges.filter((edge) => edge.source === '');
}
