// For graph runs, whose tasks run at once: scripts answer by task, and a gate makes branches overlap.
import { z } from 'zod';
import { defineTool } from 'dualloop';
import type { ScriptCall } from 'dualloop/testing';

/** The task's own words: the first user message of a model call. */
export function taskOf(call: ScriptCall): string {
  const first = call.messages.find((message) => message.role === 'user');
  return typeof first?.content === 'string' ? first.content : '';
}

/** How many answers the task had before this call: its turn, counted from 0. */
export function turnOf(call: ScriptCall): number {
  return call.messages.filter((message) => message.role === 'assistant').length;
}

/**
 * A tool (no arguments) whose calls wait until the test calls `open()`; `allIn` resolves once
 * `expected` calls are inside it at once. `void gate.allIn.then(gate.open)` lets the branches go
 * on as soon as they all got there: they surely ran at the same time.
 */
export function branchGate(name = 'wait', expected = 2) {
  let inside = 0;
  let allInside: () => void = () => undefined;
  const allIn = new Promise<void>((resolve) => (allInside = resolve));
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const tool = defineTool({
    name,
    description: 'Waits until the test lets it finish.',
    parameters: z.object({}),
    execute: async () => {
      if ((inside += 1) === expected) allInside();
      await opened;
      return 'passed';
    },
  });
  return { tool, allIn, open: () => open() };
}
