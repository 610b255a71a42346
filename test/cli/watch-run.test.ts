import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createKernel, type KernelEvent, type WorkflowResult } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import type { RunOutput } from '../../src/cli/run-output.js';
import { trapInterrupts, watchRun } from '../../src/cli/watch-run.js';

/** Records what the watcher hands over; `calling` resolves once the model call is in flight. */
function recordingOutput(): RunOutput & { events: KernelEvent[]; notes: string[]; finished: WorkflowResult[]; calling: Promise<void> } {
  const events: KernelEvent[] = [];
  const notes: string[] = [];
  const finished: WorkflowResult[] = [];
  let markCalling!: () => void;
  const calling = new Promise<void>((resolve) => (markCalling = resolve));
  return {
    events,
    notes,
    finished,
    calling,
    onEvent: (event) => {
      events.push(event);
      if (event.type === 'message_start') markCalling();
    },
    finish: (result) => void finished.push(result),
    note: (message) => void notes.push(message),
  };
}

describe('watchRun and the Ctrl-C trap', () => {
  it('aborts the run on the first SIGINT and exits at once with 130 on the second', async () => {
    const run = createKernel({ model: scriptedModel([{ text: 'too slow', delayMs: 60_000 }]) }).start(['wait']);
    const signals = new EventEmitter();
    const exits: number[] = [];
    const output = recordingOutput();
    const trap = trapInterrupts({ signals: signals as never, exitNow: ((code: number) => void exits.push(code)) as never });
    const watching = watchRun(run, output, trap);

    await output.calling;
    signals.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([]);
    signals.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([130]);

    const result = await watching;
    trap.release();
    expect(result.stop).toMatchObject({ reason: 'context_canceled', detail: 'interrupted by SIGINT' });
    expect(output.notes[0]).toContain('press Ctrl-C again to exit at once');
    expect(output.finished).toEqual([result]);
    expect(output.events.at(-1)?.type).toBe('workflow_end');
    expect(signals.listenerCount('SIGINT')).toBe(0);
    expect(signals.listenerCount('SIGTERM')).toBe(0);
  });

  it('treats SIGTERM like a first Ctrl-C', async () => {
    const run = createKernel({ model: scriptedModel([{ text: 'too slow', delayMs: 60_000 }]) }).start(['wait']);
    const signals = new EventEmitter();
    const output = recordingOutput();
    const watching = watchRun(run, output, trapInterrupts({ signals: signals as never, exitNow: (() => undefined) as never }));
    await output.calling;
    signals.emit('SIGTERM', 'SIGTERM');
    expect((await watching).stop).toMatchObject({ reason: 'context_canceled', detail: 'interrupted by SIGTERM' });
  });

  it('keeps a Ctrl-C that came before the run was attached and applies it on attach', async () => {
    const signals = new EventEmitter();
    const trap = trapInterrupts({ signals: signals as never, exitNow: (() => undefined) as never });
    signals.emit('SIGINT', 'SIGINT');
    expect(trap.interrupted).toBe('SIGINT');
    const run = createKernel({ model: scriptedModel([{ text: 'too slow', delayMs: 60_000 }]) }).start(['wait']);
    const result = await watchRun(run, recordingOutput(), trap);
    trap.release();
    expect(result.stop).toMatchObject({ reason: 'context_canceled', detail: 'interrupted by SIGINT' });
  });
});
