import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, sqliteStore, type KernelEvent } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { useTempDir } from '../store/temp-dir.js';

// Issue 15 item 9 and docs/security.md: binary values are not searched for secrets, so their bytes
// never leave a run; each becomes the marker the docs name, wherever it comes from.

const directory = useTempDir();
const SECRET = 'binary-secret-0123456789';
const bytes = () => new TextEncoder().encode(SECRET);

describe('binary values', () => {
  it('a typed array in a tool result, in progress and in arguments a hook rewrote is the documented marker everywhere', async () => {
    const path = join(directory(), 'runs.db');
    const store = sqliteStore({ path });
    const upload = defineTool({
      name: 'upload',
      description: 'Uploads bytes.',
      parameters: z.object({ name: z.string(), body: z.instanceof(Uint8Array).optional() }),
      execute: ({ body }, context) => {
        context.update({ sent: new Uint16Array(4) });
        return { received: body?.byteLength ?? 0, echo: bytes(), raw: bytes().buffer };
      },
    });
    const run = createKernel({
      model: scriptedModel([{ toolCalls: [{ name: 'upload', args: { name: 'file' } }] }, { text: 'done' }]),
      tools: [upload],
      store,
      redact: [SECRET],
      beforeToolCall: (call) => ({ args: { ...(call.args as object), body: bytes() } }),
    }).start(['go']);
    const events: KernelEvent[] = [];
    for await (const event of run) events.push(event);
    const result = await run.result;
    const stored = JSON.stringify([await store.readEvents(run.runId), await store.loadResult(run.runId), store.getToolResult(run.runId, 'call_0_0')]);
    store.close();

    const marker = `[Uint8Array of ${SECRET.length} bytes]`;
    expect(result.tasks[0]!.turns[0]!.toolCalls[0]).toMatchObject({ isError: false, result: { received: SECRET.length, echo: marker, raw: `[ArrayBuffer of ${SECRET.length} bytes]` } });
    expect(events.find((event) => event.type === 'tool_execution_update')).toMatchObject({ progress: { sent: '[Uint16Array of 8 bytes]' } });
    // The arguments the hook rewrote reach the tool as bytes, and the store as the marker.
    expect(JSON.parse(stored)[2]).toMatchObject({ args: { name: 'file', body: marker } });
    // No byte of the secret anywhere: neither as text nor as the JSON of an array of numbers.
    const numbers = [...bytes()].join(',');
    for (const text of [stored, JSON.stringify(events), readFileSync(path, 'latin1')]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(numbers);
      expect(text).not.toMatch(/"0":\d+,"1":\d+/);
    }
  });

  it('docs/security.md says so, with the marker the limits table uses', () => {
    const doc = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');
    expect(doc).not.toMatch(/passed\s+through as they are/);
    expect(doc).toMatch(/\*\*Binary values\*\* are not searched for secrets, so their bytes never leave/);
    expect(doc).toContain('a typed array or `ArrayBuffer` `[Uint8Array of N bytes]`');
  });
});
