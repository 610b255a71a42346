/**
 * The machines are the spec (docs/diagrams.md is drawn from them): every guard and every action
 * of every state and transition is named in `setup()`, none is an inline function. XState's own
 * bookkeeping for delayed transitions (the timer it starts on entry and cancels on exit) is the
 * one exception, since no definition writes it.
 */
import { describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { getStateNodes } from 'xstate/graph';
import { turnMachine } from '../../machines/turn.machine.js';
import { workflowMachine } from '../../machines/workflow.machine.js';

interface NodeView {
  readonly path: readonly string[];
  readonly entry: readonly unknown[];
  readonly exit: readonly unknown[];
  readonly transitions: ReadonlyMap<string, readonly { readonly guard: unknown; readonly actions: readonly unknown[] }[]>;
  readonly always?: readonly { readonly guard: unknown; readonly actions: readonly unknown[] }[];
}

function isTimer(action: unknown): boolean {
  const { id, sendId } = action as { id?: unknown; sendId?: unknown };
  return [id, sendId].some((value) => typeof value === 'string' && value.startsWith('xstate.after.'));
}

const isNamed = (step: unknown) => typeof step === 'string' || (typeof step === 'object' && step !== null && typeof (step as { type?: unknown }).type === 'string');

/** Every inline guard or action of a machine, as `<state path> <where>`. */
function inlineSteps(machine: AnyStateMachine): string[] {
  const found: string[] = [];
  const nodes = [machine.root, ...getStateNodes(machine.root)] as unknown as NodeView[];
  for (const node of nodes) {
    const where = node.path.join('.') || '(machine)';
    for (const action of [...node.entry, ...node.exit]) if (!isNamed(action) && !isTimer(action)) found.push(`${where} entry/exit action`);
    const transitions = [...[...node.transitions.entries()].flatMap(([event, list]) => list.map((transition) => ({ event, transition }))), ...(node.always ?? []).map((transition) => ({ event: 'always', transition }))];
    for (const { event, transition } of transitions) {
      if (transition.guard !== undefined && !isNamed(transition.guard)) found.push(`${where} ${event} guard`);
      for (const action of transition.actions) if (!isNamed(action)) found.push(`${where} ${event} action`);
    }
  }
  return found;
}

describe('every guard and action is named', () => {
  it.each([
    ['workflow', workflowMachine],
    ['turn', turnMachine],
  ] as const)('%s machine', (_name, machine) => {
    expect(inlineSteps(machine)).toEqual([]);
  });

  it('finds an inline one (the check can fail)', async () => {
    const { assign, createMachine } = await import('xstate');
    const machine = createMachine({ initial: 'A', states: { A: { on: { GO: { guard: () => true, actions: assign({}) } } } } });
    expect(inlineSteps(machine)).toEqual(['A GO guard', 'A GO action']);
  });
});
