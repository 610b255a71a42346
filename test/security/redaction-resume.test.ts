import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, memoryStore, type WorkflowResult } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { waitForEvent } from '../support/kernel-fixtures.js';

/*
 * Redaction and replay (ADR/0100): the model sees a tool's result as it is recorded, so a resumed
 * run replays exactly what the live run saw; the result the caller gets is the recorded one, so
 * a run cut and resumed ends with the same result as one that was not.
 */

const PASSWORD = 'resume-secret-password-77';
const readVault = defineTool({
  name: 'read_vault',
  description: 'Reads a vault entry',
  parameters: z.object({ entry: z.string() }),
  execute: ({ entry }) => ({ entry, value: PASSWORD }),
});

function script(stall: { first: boolean }) {
  return scriptedModel(({ index, messages }) => {
    // The model's answer depends on what it saw: a model that saw the secret would repeat it.
    const seen = messages.map((message) => ('content' in message ? String(message.content) : '')).join(' ');
    if (index === 0) return { toolCalls: [{ id: 'c1', name: 'read_vault', args: { entry: 'db' } }] };
    if (index === 1) {
      if (stall.first) {
        stall.first = false;
        return { text: 'slow', delayMs: 60_000 };
      }
      return { toolCalls: [{ id: 'c2', name: 'read_vault', args: { entry: 'api' } }] };
    }
    return { text: seen.includes(PASSWORD) ? `saw ${PASSWORD}` : `saw ${seen.includes('[redacted]') ? 'redacted' : 'nothing'}` };
  });
}

function comparable(result: WorkflowResult) {
  return result.tasks.map((task) => ({
    stop: task.stop.reason,
    output: task.output,
    turns: task.turns.map((turn) => ({ text: turn.assistantText, calls: turn.toolCalls.map(({ id, args, result: value, isError }) => ({ id, args, value, isError })) })),
  }));
}

describe('redaction and resume', () => {
  it('a run cut after a secret-bearing tool result and resumed ends as the uninterrupted run', async () => {
    const straight = await createKernel({ model: script({ first: false }), tools: [readVault], redact: [PASSWORD] }).start(['read']).result;

    const store = memoryStore();
    const kernel = createKernel({ model: script({ first: true }), tools: [readVault], redact: [PASSWORD], store });
    const cut = kernel.start(['read'], { runId: 'cut' });
    await waitForEvent(cut, (event) => event.type === 'message_start' && event.turn === 2);
    cut.abort('crash');
    expect((await cut.result).stop.reason).toBe('context_canceled');
    const resumed = await (await kernel.resume('cut')).result;

    expect(straight.tasks[0]!.output).toBe('saw redacted');
    expect(comparable(resumed)).toEqual(comparable(straight));
    expect(JSON.stringify(resumed)).not.toContain(PASSWORD);
  });
});
