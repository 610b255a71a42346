import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { createKernel, openaiModel, sqliteStore, type KernelEvent } from 'dualloop';
import { createStatelyInspector } from 'dualloop/inspect';
import { startViewer } from 'dualloop/viewer';
import { isolateOpenAIEnvironment, useServer } from '../providers/helpers.js';
import { readEvents } from '../viewer/sse-client.js';
import { API_KEY, DB_PASSWORD, fetchReport, filesText, firstAnswer, HEADER_VALUE, leaks, secondAnswer, TASK } from './secrets-fixture.js';

/*
 * Issue 15 items 1–3: one run spreads secrets through the model's text (split across deltas), its
 * tool-call arguments, a tool's result and progress, and the task itself; every output of the run
 * is then read whole and searched. Zero hits anywhere.
 */

isolateOpenAIEnvironment();
const server = useServer();
let directory: string | undefined;
afterEach(() => {
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

/** Every frame a local WebSocket receiver gets (what `--inspect-url ws://…` sends). */
async function webSocketReceiver() {
  const frames: string[] = [];
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  wss.on('connection', (socket) => socket.on('message', (data) => frames.push(String(data))));
  const { port } = wss.address() as { port: number };
  return { url: `ws://127.0.0.1:${port}`, frames, close: () => new Promise<void>((resolve) => wss.close(() => resolve())) };
}

/** The raw bytes of a server-sent-event stream until `stop()`. */
function rawStream(url: string) {
  const controller = new AbortController();
  let text = '';
  const reading = (async () => {
    try {
      const response = await fetch(url, { signal: controller.signal });
      for await (const part of response.body!) text += Buffer.from(part as Uint8Array).toString('utf8');
    } catch {
      // Aborted by stop(), or the server closed: what arrived is in `text`.
    }
  })();
  return {
    stop: async () => {
      controller.abort();
      await reading;
      return text;
    },
  };
}

describe('a secret never leaves the run', () => {
  it('is absent from the event stream, pino, the inspector frames, the result, the SQLite files and the viewer stream', async () => {
    directory = mkdtempSync(join(tmpdir(), 'dualloop-secrets-'));
    const path = join(directory, 'runs.db');
    server().enqueue(firstAnswer(), secondAnswer());

    const logLines: string[] = [];
    const logger = pino({ level: 'debug' }, new Writable({ write: (chunk, _encoding, done) => (logLines.push(String(chunk)), done()) }));
    const receiver = await webSocketReceiver();
    const overWebSocket = await createStatelyInspector({ url: receiver.url, onProblem: () => undefined });
    const page = await createStatelyInspector({ onProblem: () => undefined });
    const pageFrames = rawStream(`${page.url}events`);

    const store = sqliteStore({ path });
    const model = openaiModel({ model: 'test-model', baseURL: server().baseURL, apiKey: API_KEY, headers: { 'x-custom-auth': HEADER_VALUE }, maxRetries: 0 });
    const kernel = createKernel({
      model,
      tools: [fetchReport],
      store,
      logger,
      redact: [DB_PASSWORD],
      inspect: (event) => {
        for (const observer of [overWebSocket.inspect, page.inspect]) {
          if (typeof observer === 'function') observer(event);
          else observer.next?.(event);
        }
      },
    });
    const run = kernel.start([TASK]);
    const events: KernelEvent[] = [];
    for await (const event of run) events.push(event);
    const result = await run.result;
    await overWebSocket.close();
    await receiver.close();

    // The run did what the secrets were for: the tool got the real arguments, the model its real key.
    expect(result.stop, JSON.stringify(events.filter((event) => event.type === 'error'))).toMatchObject({ reason: 'goal_achieved' });
    expect(server().requests[0]!.headers['authorization']).toBe(`Bearer ${API_KEY}`);
    expect(server().requests[0]!.headers['x-custom-auth']).toBe(HEADER_VALUE);
    expect(result.tasks[0]!.turns[0]!.toolCalls[0]!.isError).toBe(false);
    // The model sees the tool's result as it is recorded: redacted.
    const toolMessage = (server().requests[1]!.body.messages as { role: string; content: string }[]).find((message) => message.role === 'tool')!;
    expect(toolMessage.content).toContain('[redacted]');
    expect(leaks(toolMessage.content)).toEqual([]);

    const viewer = await startViewer({ store: sqliteStore({ path }), pollMs: 20 });
    const streamed = await readEvents(`${viewer.url}api/runs/${run.runId}/stream`, (received) => received.some((message) => message.event === 'audit'));
    await viewer.close();
    await page.close();
    const pageMessages = await pageFrames.stop();
    store.close();

    const outputs: Record<string, string> = {
      'event stream': JSON.stringify(events),
      'pino lines': logLines.join(''),
      'run.result': JSON.stringify(result),
      'WebSocket inspector frames': receiver.frames.join('\n'),
      'inspector page SSE': pageMessages,
      'SQLite files': filesText(directory, 'runs.db'),
      'viewer SSE': JSON.stringify(streamed),
    };
    for (const [name, text] of Object.entries(outputs)) {
      expect(text.length, name).toBeGreaterThan(0);
      expect(leaks(text), name).toEqual([]);
    }
    expect(receiver.frames.length).toBeGreaterThan(10);
    expect(logLines.length).toBe(events.length);
    // Redaction keeps the streamed text whole: the deltas add up to the message's (redacted) text.
    const firstTurn = events.filter((event) => 'turn' in event && event.turn === 1 && event.taskIndex === 0);
    const deltas = firstTurn.flatMap((event) => (event.type === 'message_update' ? [event.delta] : [])).join('');
    const end = firstTurn.find((event) => event.type === 'message_end');
    expect(deltas).toBe(end?.type === 'message_end' ? end.text : undefined);
    expect(deltas).toBe('Calling with key [redacted] and header [redacted].');
  });
});
