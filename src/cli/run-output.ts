import type { KernelEvent } from '../contracts/events.js';
import type { WorkflowResult } from '../contracts/results.js';

/** Where a watched run's progress goes: the live view on a terminal, NDJSON otherwise. */
export interface RunOutput {
  onEvent(event: KernelEvent): void;
  /** Called once, after the last event, with the run's result. */
  finish(result: WorkflowResult): void;
  /** A human message about the run (hints, interruptions): in the view on a terminal, on stderr in NDJSON mode. */
  note(message: string): void;
}

/**
 * NDJSON: one event per line on stdout, nothing else there (notes go to stderr), so the output
 * can be piped into `jq` or a log collector. The last line is the `workflow_end` event.
 */
export function ndjsonOutput(stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): RunOutput {
  return {
    onEvent(event) {
      stdout.write(`${JSON.stringify(event, jsonSafe)}\n`);
    },
    finish() {},
    note(message) {
      stderr.write(`${message}\n`);
    },
  };
}

/** Tool results are the tools' own values: keep a line valid JSON even when one holds a bigint. */
function jsonSafe(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}
