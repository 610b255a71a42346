import { z } from 'zod';
import { defineTool, type KernelEvent, type Message, type Tool, type ToolExecutionMode } from 'dualloop';

/** Resolves after `ms` of real time (tool bodies in the timing tests). */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A promise with its resolver, to hold a tool or a model call until the test releases it. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

/** What a tool saw, in the order things happened: `start:<name>:<id>` / `end:<name>:<id>`. */
export type Timeline = string[];

/** A tool that sleeps `args.ms` (real time), logs its start and end, and returns `args.label`. */
export function sleeperTool(name: string, timeline: Timeline, executionMode?: ToolExecutionMode): Tool {
  return defineTool({
    name,
    description: `sleeps, then returns its label (${name})`,
    parameters: z.object({ ms: z.number(), label: z.string() }),
    ...(executionMode === undefined ? {} : { executionMode }),
    execute: async ({ ms, label }, { toolCallId }) => {
      timeline.push(`start:${toolCallId}`);
      await sleep(ms);
      timeline.push(`end:${toolCallId}`);
      return label;
    },
  });
}

/** The tool messages of a transcript, as `[toolCallId, content]` pairs. */
export function toolMessages(messages: readonly Message[]): [string, string][] {
  return messages.flatMap((message) => (message.role === 'tool' ? [[message.toolCallId, message.content] as [string, string]] : []));
}

/** The user messages of a transcript, as their contents. */
export function userContents(messages: readonly Message[]): string[] {
  return messages.flatMap((message) => (message.role === 'user' ? [message.content] : []));
}

/** Tool calls whose `tool_execution_start` and `tool_execution_end` do not pair one to one. */
export function unpairedToolCalls(events: readonly KernelEvent[]): string[] {
  const count = new Map<string, number>();
  for (const event of events) {
    if (event.type === 'tool_execution_start') count.set(event.toolCallId, (count.get(event.toolCallId) ?? 0) + 1);
    if (event.type === 'tool_execution_end') count.set(event.toolCallId, (count.get(event.toolCallId) ?? 0) - 1);
  }
  return [...count.entries()].filter(([, balance]) => balance !== 0).map(([id]) => id);
}
