// What the worker tests share: a scripted workflow whose tool counts its executions, a place per
// test (store schema + pg-boss schema), and waiting for a run's stored result.
import { z } from 'zod';
import { defineTool, postgresStore, type KernelOptions, type PolicyGate, type PostgresStore, type WorkflowResult } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { postgresUrl, useSchemas } from '../support/postgres.js';

export interface Place {
  readonly connectionString: string;
  readonly schema: string;
  readonly queueSchema: string;
}

/** Returns a function giving each test its own store and queue schemas (dropped after the file). */
export function usePlaces(): () => Place {
  const schemas = useSchemas('w');
  return () => ({ connectionString: postgresUrl(), schema: schemas(), queueSchema: schemas() });
}

/**
 * A two-task workflow: each task calls `note` then answers. `executions` counts every real
 * execution of `note` by run and call id (a replay does not execute it).
 */
export function notingWorkflow(options: { readonly delayMs?: number; readonly policy?: PolicyGate } = {}) {
  const executions = new Map<string, number>();
  const build = ({ runId }: { runId: string }): KernelOptions => {
    const note = defineTool({
      name: 'note',
      description: 'Notes a text.',
      parameters: z.object({ text: z.string() }),
      execute: ({ text }, context) => {
        const key = `${runId}/${context?.toolCallId ?? text}`;
        executions.set(key, (executions.get(key) ?? 0) + 1);
        return `noted ${text}`;
      },
    });
    const script = ({ index }: { index: number }) => ({
      ...(index % 2 === 0 ? { toolCalls: [{ name: 'note', args: { text: `step ${index}` }, id: `call-${index}` }] } : { text: `done ${index}` }),
      delayMs: options.delayMs ?? 0,
    });
    return { model: scriptedModel(script), tools: [note], loopDetection: false, ...(options.policy === undefined ? {} : { policy: options.policy }) };
  };
  return { build, executions };
}

/** The `--store` URL of the CLI for a place: `postgres://…?schema=S&queueSchema=Q`. */
export function storeUrl(place: Place): string {
  return `${place.connectionString}${place.connectionString.includes('?') ? '&' : '?'}schema=${place.schema}&queueSchema=${place.queueSchema}`;
}

export function openStore(place: Place): PostgresStore {
  return postgresStore({ connectionString: place.connectionString }, { schema: place.schema });
}

/** Waits until the run has saved `count` checkpoints (it is running, `count` turns in). */
export async function untilCheckpoints(store: PostgresStore, runId: string, count: number): Promise<void> {
  while ((await store.readEvents(runId)).filter((event) => event.type === 'checkpoint_saved').length < count) await new Promise((resolve) => setTimeout(resolve, 25));
}

/** Waits for the run's stored result that `accept` accepts (the run has ended, or parked). */
export async function storedResult(store: PostgresStore, runId: string, accept: (result: WorkflowResult) => boolean = () => true, waitMs = 60_000): Promise<WorkflowResult> {
  const until = Date.now() + waitMs;
  for (;;) {
    const result = await store.loadResult(runId);
    if (result !== undefined && accept(result)) return result;
    if (Date.now() > until) throw new Error(`run ${runId} has no accepted result after ${waitMs} ms (last: ${JSON.stringify(result?.stop)})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function workflowEnds(store: PostgresStore, runId: string) {
  return (await store.readEvents(runId)).filter((event) => event.type === 'workflow_end');
}

/**
 * A result as another run of the same workload must match it: everything but the run id, clock
 * times (every `at`) and runtimes (every `runtimeMs`) — stops, task outputs, turns, tool calls
 * and their results, usage, cost and every other counter.
 */
export function comparableResult(result: WorkflowResult): unknown {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== 'at' && key !== 'runtimeMs')
        .map(([key, inner]) => [key, strip(inner)]),
    );
  };
  const { runId: _runId, ...rest } = result;
  return strip(rest);
}
