import type { KernelEvent } from '../contracts/events.js';
import type { Clock } from '../contracts/clock.js';
import type { KernelLogger } from '../events/observers.js';
import type { WorkflowRun } from '../kernel/workflow-run.js';

export interface ManualClock extends Clock {
  /** Moves time forward, firing due timers in order. */
  advance(ms: number): void;
}

/** A clock that only moves when told: deadlines fire on `advance`, never on their own. */
export function manualClock(start = 1_700_000_000_000): ManualClock {
  let now = start;
  let nextId = 1;
  const timers = new Map<number, { at: number; callback: () => void }>();
  return {
    now: () => now,
    setTimeout(callback, delayMs) {
      const id = nextId++;
      timers.set(id, { at: now + Math.max(0, delayMs), callback });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    advance(ms) {
      const target = now + ms;
      for (;;) {
        let dueId: number | undefined;
        let due: { at: number; callback: () => void } | undefined;
        for (const [id, timer] of timers) {
          if (timer.at <= target && (due === undefined || timer.at < due.at)) {
            dueId = id;
            due = timer;
          }
        }
        if (due === undefined || dueId === undefined) break;
        timers.delete(dueId);
        now = Math.max(now, due.at);
        due.callback();
      }
      now = target;
    },
  };
}

export interface RecordedLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly bindings: Record<string, unknown>;
  readonly object: Record<string, unknown>;
  readonly message: string | undefined;
}

/** A pino-shaped logger that keeps every line (as JSON text too, to search for leaked secrets). */
export function recordingLogger(): KernelLogger & { readonly lines: RecordedLine[]; text(): string } {
  const lines: RecordedLine[] = [];
  const make = (bindings: Record<string, unknown>): KernelLogger => {
    const write = (level: RecordedLine['level']) => (object: object, message?: string) => {
      lines.push({ level, bindings, object: JSON.parse(JSON.stringify(object)) as Record<string, unknown>, message });
    };
    return {
      child: (more) => make({ ...bindings, ...more }),
      debug: write('debug'),
      info: write('info'),
      warn: write('warn'),
      error: write('error'),
    };
  };
  const root = make({});
  return Object.assign(root, { lines, text: () => lines.map((line) => JSON.stringify(line)).join('\n') });
}

/** Drains a run's events and its result together. */
export async function collectRun(run: WorkflowRun): Promise<{ events: KernelEvent[]; result: Awaited<WorkflowRun['result']> }> {
  const events: KernelEvent[] = [];
  for await (const event of run) events.push(event);
  return { events, result: await run.result };
}
