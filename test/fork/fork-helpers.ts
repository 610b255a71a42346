// Shared by the fork tests: a tool that leaves a line in a side file for every execution, and a
// result without what differs between two runs of the same work (run id, clock readings).
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { defineTool, type WorkflowResult } from 'dualloop';

/** `note` appends its text to `path`: the file lists every execution, in order. */
export function noteTool(path: string) {
  return defineTool({
    name: 'note',
    description: 'writes a note',
    parameters: z.object({ text: z.string() }),
    execute: ({ text }) => {
      appendFileSync(path, `${text}\n`);
      return `noted ${text}`;
    },
  });
}

/** `wait` answers only once `release()` is called: a source run held inside a tool while a test forks it. */
export function heldTool() {
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tool = defineTool({ name: 'wait', description: 'waits', parameters: z.object({}), execute: async () => {
    await held;
    return 'waited';
  } });
  return { tool, release: () => release() };
}

export function sideFile(path: string): string[] {
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((line) => line !== '') : [];
}

/** What two runs of the same work must agree on: stop, tasks, turns, tool calls and counters. */
export function comparable(result: WorkflowResult): unknown {
  return JSON.parse(JSON.stringify({ stop: result.stop, tasks: result.tasks, metrics: result.metrics }), (key, value: unknown) =>
    key === 'at' || key === 'runtimeMs' || key === 'elapsedMs' ? 0 : value,
  );
}
