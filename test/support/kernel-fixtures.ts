import { z } from 'zod';
import { defineTool, type KernelEvent } from 'dualloop';

/** A tool that counts its executions, for asserting how many really ran. */
export function countingTool(name = 'step') {
  const executed: unknown[] = [];
  const tool = defineTool({
    name,
    description: `Counts calls to ${name}.`,
    parameters: z.object({ n: z.number().optional() }),
    execute: (args) => {
      executed.push(args);
      return { ok: true, count: executed.length };
    },
  });
  return { tool, executed };
}

/**
 * `gate`: records its `note`, then waits until the test calls `open()`; `inTool` resolves once a
 * call is inside it. `GATE_SCRIPT` has task 1 call it, then every model call answer.
 */
export function gateTool() {
  const executions: string[] = [];
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  let started: () => void = () => undefined;
  const inTool = new Promise<void>((resolve) => (started = resolve));
  const tool = defineTool({
    name: 'gate',
    description: 'Waits until the test opens it.',
    parameters: z.object({ note: z.string() }),
    execute: async ({ note }) => {
      executions.push(note);
      started();
      await opened;
      return `passed ${note}`;
    },
  });
  return { tool, executions, open: () => open(), inTool };
}

export const GATE_SCRIPT = ({ index }: { index: number }) =>
  index === 0 ? { toolCalls: [{ name: 'gate', args: { note: 'first' }, id: 'call-gate' }] } : { text: `answer ${index}` };

export const addTool = defineTool({
  name: 'add',
  description: 'Adds two numbers.',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => a + b,
});

export function eventsOfType<T extends KernelEvent['type']>(events: readonly KernelEvent[], type: T): Extract<KernelEvent, { type: T }>[] {
  return events.filter((event): event is Extract<KernelEvent, { type: T }> => event.type === type);
}

/** Resolves when the run emits an event matching `predicate`. */
export async function waitForEvent(run: AsyncIterable<KernelEvent>, predicate: (event: KernelEvent) => boolean): Promise<KernelEvent> {
  for await (const event of run) if (predicate(event)) return event;
  throw new Error('the run ended before the expected event');
}
