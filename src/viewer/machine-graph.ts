import type { AnyStateMachine } from 'xstate';
import { turnMachine } from '../../machines/turn.machine.js';
import { workflowMachine } from '../../machines/workflow.machine.js';
import type { GraphNode, InvokedActor, MachineGraph, MachineGraphs, TargetlessTransition } from './protocol.js';

/** The parts of an XState state node this module reads (xstate's StateNode has them all). */
interface StateNodeView {
  readonly key: string;
  readonly path: readonly string[];
  readonly type: GraphNode['type'];
  readonly states: Readonly<Record<string, StateNodeView>>;
  readonly initial: { readonly target: readonly StateNodeView[] } | undefined;
  readonly transitions: ReadonlyMap<string, readonly TransitionView[]>;
  readonly always: readonly TransitionView[] | undefined;
  readonly invoke: readonly { readonly id: string; readonly src: unknown }[];
  readonly entry: readonly unknown[];
  readonly exit: readonly unknown[];
}

interface TransitionView {
  readonly eventType: string;
  readonly target: readonly StateNodeView[] | undefined;
  readonly guard: unknown;
  readonly actions: readonly unknown[];
}

/**
 * A machine's states and transitions, read from its definition (`machine.root`), so the viewer's
 * drawing and docs/diagrams.md cannot drift from the machines. Targeted transitions become edges;
 * those without a target (actions only, e.g. STEER) are kept apart in `targetless`: they change no
 * state, yet they are part of the spec. Transitions declared on the root apply from any state;
 * their source is `''`.
 */
export function machineGraph(machine: AnyStateMachine): MachineGraph {
  const root = machine.root as unknown as StateNodeView;
  const nodes: GraphNode[] = [];
  const edges = new Map<string, { source: string; target: string; labels: string[]; actions: string[][] }>();
  const targetless: TargetlessTransition[] = [];
  const visit = (node: StateNodeView, parent: StateNodeView | undefined) => {
    const path = node.path.join('.');
    if (parent !== undefined) {
      nodes.push({
        path,
        key: node.key,
        parent: parent.path.length === 0 ? undefined : parent.path.join('.'),
        type: node.type,
        initial: parent.initial?.target.includes(node) ?? false,
        invokes: invokedActors(node),
        entry: actionNames(node.entry),
        exit: actionNames(node.exit),
      });
    }
    const transitions = [...[...node.transitions.values()].flat(), ...(node.always ?? [])];
    for (const transition of transitions) {
      if ((transition.target ?? []).length === 0) targetless.push({ source: path, label: transitionLabel(transition), actions: actionNames(transition.actions) });
      for (const target of transition.target ?? []) {
        const targetPath = target.path.join('.');
        const id = `${path}→${targetPath}`;
        const edge = edges.get(id) ?? { source: path, target: targetPath, labels: [], actions: [] };
        const label = transitionLabel(transition);
        const actions = actionNames(transition.actions);
        const same = edge.labels.findIndex((known, index) => known === label && edge.actions[index]!.join() === actions.join());
        if (same === -1) {
          edge.labels.push(label);
          edge.actions.push(actions);
        }
        edges.set(id, edge);
      }
    }
    for (const child of Object.values(node.states)) visit(child, node);
  };
  visit(root, undefined);
  return { id: root.key, invokes: invokedActors(root), entry: actionNames(root.entry), nodes, edges: [...edges.values()], targetless };
}

function invokedActors(node: StateNodeView): InvokedActor[] {
  return node.invoke.map((definition) => ({ id: definition.id, src: typeof definition.src === 'string' ? definition.src : 'inline' }));
}

/** Both machines of the kernel. */
export function kernelMachineGraphs(): MachineGraphs {
  return { workflow: machineGraph(workflowMachine), turn: machineGraph(turnMachine) };
}

/** What a reader needs to tell a transition apart: its event, in words, and the guard that decides it. */
export function transitionLabel(transition: Pick<TransitionView, 'eventType' | 'guard'>): string {
  return `${eventLabel(transition.eventType)}${guardLabel(transition.guard)}`;
}

/**
 * The names of actions as a definition lists them: a named action by its name, an inline one as
 * `inline <kind>`. XState's own bookkeeping (the timers of delayed transitions) is left out.
 */
export function actionNames(actions: readonly unknown[]): string[] {
  const names: string[] = [];
  for (const action of actions) {
    if (typeof action === 'string') names.push(action);
    else if (typeof action === 'function') {
      const { type, id, sendId } = action as { type?: unknown; id?: unknown; sendId?: unknown };
      // A delayed transition's timer: started on entry (`id`), canceled on exit (`sendId`).
      if ([id, sendId].some((value) => typeof value === 'string' && value.startsWith('xstate.after.'))) continue;
      names.push(`inline ${typeof type === 'string' ? type.replace(/^xstate\./, '') : 'function'}`);
    } else if (typeof action === 'object' && action !== null && typeof (action as { type?: unknown }).type === 'string') names.push((action as { type: string }).type);
  }
  return names;
}

function eventLabel(eventType: string): string {
  if (eventType === '') return 'always';
  const done = /^xstate\.done\.actor\.(.+)$/.exec(eventType);
  if (done !== null) return `${done[1]} done`;
  const error = /^xstate\.error\.actor\.(.+)$/.exec(eventType);
  if (error !== null) return `${error[1]} error`;
  const after = /^xstate\.after\.([^.]+)\./.exec(eventType);
  if (after !== null) return `after ${after[1]}`;
  if (eventType.startsWith('xstate.done.state.')) return 'done';
  return eventType;
}

function guardLabel(guard: unknown): string {
  if (guard === undefined) return '';
  if (typeof guard === 'string') return ` (${guard})`;
  if (typeof guard === 'object' && guard !== null && typeof (guard as { type?: unknown }).type === 'string') return ` (${(guard as { type: string }).type})`;
  return ' (guarded)';
}
