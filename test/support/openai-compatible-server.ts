import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * A small Chat Completions peer on 127.0.0.1 for tests: it answers each POST to
 * /v1/chat/completions (or to /v1/messages, Anthropic's path, whose frames
 * test/support/anthropic-frames.ts writes) with the next scripted response, records every request, and notices when
 * the client closes the connection. It writes real SSE frames, so the real `openai` SDK parses them.
 */

/** One step of a streamed response, written in order. */
export type StreamStep =
  /** One SSE event whose data is this object as JSON. */
  | { readonly chunk: Readonly<Record<string, unknown>> }
  /** Bytes written exactly as given (malformed frames, comments, partial events). */
  | { readonly raw: string }
  /** The `data: [DONE]` sentinel. */
  | { readonly done: true }
  | { readonly delayMs: number }
  /** Waits for this promise before writing the next step (lets a test prove what the client saw first). */
  | { readonly until: Promise<unknown> }
  /** Destroys the socket mid-response, as a crashed server or a dropped connection would. */
  | { readonly cut: true }
  /** Stops writing and keeps the connection open until the client gives up. */
  | { readonly hang: true };

export type ScriptedResponse =
  | { readonly type: 'stream'; readonly steps: readonly StreamStep[]; readonly headers?: Readonly<Record<string, string>> }
  | { readonly type: 'status'; readonly status: number; readonly body?: unknown; readonly headers?: Readonly<Record<string, string>> }
  /** Never sends response headers. */
  | { readonly type: 'hang' };

/** A response, or a function of the recorded request that returns one (to echo what was sent). */
export type Script = ScriptedResponse | ((request: RecordedRequest) => ScriptedResponse);

export interface RecordedRequest {
  readonly index: number;
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON body (or the raw text when it is not JSON). */
  readonly body: any;
  /** Resolves when the client closed the connection before the response was complete. */
  readonly clientClosed: Promise<void>;
  /** True once the client closed the connection before the response was complete. */
  readonly closedByClient: () => boolean;
}

export interface OpenAICompatibleServer {
  /** `http://127.0.0.1:<port>/v1`, to pass as `baseURL`. */
  readonly baseURL: string;
  readonly requests: readonly RecordedRequest[];
  /** Queues responses; each request takes the next one. An empty queue answers 400 (not retried). */
  enqueue(...scripts: Script[]): void;
  /** Responses still queued. */
  pending(): number;
  reset(): void;
  close(): Promise<void>;
}

export async function startOpenAICompatibleServer(): Promise<OpenAICompatibleServer> {
  const queue: Script[] = [];
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      let closed = false;
      let markClosed!: () => void;
      const clientClosed = new Promise<void>((resolve) => (markClosed = resolve));
      let serverCut = false;
      res.on('close', () => {
        if (!res.writableFinished && !serverCut) {
          closed = true;
          markClosed();
        }
      });
      const recorded: RecordedRequest = {
        index: requests.length,
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: parseJSON(text),
        clientClosed,
        closedByClient: () => closed,
      };
      requests.push(recorded);

      if (req.method !== 'POST' || !(req.url?.endsWith('/chat/completions') || req.url?.endsWith('/messages'))) {
        return sendStatus(res, 404, { error: { message: `test server: no route for ${req.method} ${req.url}`, type: 'invalid_request_error' } });
      }
      const next = queue.shift();
      if (next === undefined) {
        return sendStatus(res, 400, { error: { message: 'test server: no scripted response left', type: 'invalid_request_error' } });
      }
      const response = typeof next === 'function' ? next(recorded) : next;
      void respond(res, response, timers, () => (serverCut = true));
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...scripts) => void queue.push(...scripts),
    pending: () => queue.length,
    reset() {
      queue.length = 0;
      requests.length = 0;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

async function respond(
  res: ServerResponse,
  response: ScriptedResponse,
  timers: Set<NodeJS.Timeout>,
  markServerCut: () => void,
): Promise<void> {
  if (response.type === 'hang') return;
  if (response.type === 'status') return sendStatus(res, response.status, response.body, response.headers);

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...response.headers });
  res.flushHeaders();
  for (const step of response.steps) {
    if (res.destroyed) return;
    if ('chunk' in step) res.write(`data: ${JSON.stringify(step.chunk)}\n\n`);
    else if ('raw' in step) res.write(step.raw);
    else if ('done' in step) res.write('data: [DONE]\n\n');
    else if ('delayMs' in step) await sleep(step.delayMs, timers);
    else if ('until' in step) await step.until;
    else if ('cut' in step) {
      markServerCut();
      // Let the bytes already written reach the client before the connection drops.
      await sleep(10, timers);
      res.socket?.destroy();
      return;
    } else if ('hang' in step) return;
  }
  res.end();
}

function sendStatus(res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

function sleep(ms: number, timers: Set<NodeJS.Timeout>): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      resolve();
    }, ms);
    timers.add(timer);
  });
}

function parseJSON(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/* ---------- Builders for realistic `chat.completion.chunk` frames ---------- */

const BASE = { id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1_790_000_000, model: 'test-model' } as const;

function choiceChunk(delta: Record<string, unknown>, finishReason: string | null = null): StreamStep {
  // With include_usage, OpenAI sends `usage: null` on every chunk but the last.
  return { chunk: { ...BASE, choices: [{ index: 0, delta, finish_reason: finishReason }], usage: null } };
}

export const chunk = {
  role: (): StreamStep => choiceChunk({ role: 'assistant', content: '' }),
  text: (content: string): StreamStep => choiceChunk({ content }),
  refusal: (refusal: string): StreamStep => choiceChunk({ refusal }),
  /** One tool-call fragment. The first fragment of a call carries `id` and `name`; later ones only `arguments`. */
  toolCall: (fragment: { index?: number; id?: string; name?: string; arguments?: unknown }): StreamStep => {
    const { index, id, name, arguments: args } = fragment;
    const call: Record<string, unknown> = index === undefined ? {} : { index };
    if (id !== undefined) Object.assign(call, { id, type: 'function' });
    const fn: Record<string, unknown> = {};
    if (name !== undefined) fn['name'] = name;
    if (args !== undefined) fn['arguments'] = args;
    call['function'] = fn;
    return choiceChunk({ tool_calls: [call] });
  },
  finish: (reason: string): StreamStep => choiceChunk({}, reason),
  usage: (promptTokens: number, completionTokens: number): StreamStep => ({
    chunk: {
      ...BASE,
      choices: [],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    },
  }),
  /** An error object inside the stream, as OpenAI sends when generation fails after the 200. */
  error: (message: string): StreamStep => ({ chunk: { error: { message, type: 'server_error', code: null } } }),
  done: (): StreamStep => ({ done: true }),
};

/** A complete, well-formed streamed answer: role, text deltas, finish, usage, [DONE]. */
export function textAnswer(
  deltas: readonly string[],
  options: { finishReason?: string; usage?: readonly [number, number]; done?: boolean } = {},
): ScriptedResponse {
  const [input, output] = options.usage ?? [10, deltas.length];
  return stream([
    chunk.role(),
    ...deltas.map((delta) => chunk.text(delta)),
    chunk.finish(options.finishReason ?? 'stop'),
    chunk.usage(input, output),
    ...(options.done === false ? [] : [chunk.done()]),
  ]);
}

/** A streamed answer asking for tool calls, each call's arguments split into the given fragments. */
export function toolCallAnswer(
  calls: readonly { id: string; name: string; fragments: readonly string[] }[],
  options: { usage?: readonly [number, number] } = {},
): ScriptedResponse {
  const [input, output] = options.usage ?? [20, 10];
  const steps = calls.flatMap((call, index) => [
    chunk.toolCall({ index, id: call.id, name: call.name, arguments: '' }),
    ...call.fragments.map((fragment) => chunk.toolCall({ index, arguments: fragment })),
  ]);
  return stream([chunk.role(), ...steps, chunk.finish('tool_calls'), chunk.usage(input, output), chunk.done()]);
}

export function stream(steps: readonly StreamStep[], headers?: Readonly<Record<string, string>>): ScriptedResponse {
  return headers === undefined ? { type: 'stream', steps } : { type: 'stream', steps, headers };
}

export function status(code: number, message: string, extra: { code?: string; headers?: Readonly<Record<string, string>> } = {}): ScriptedResponse {
  const body = { error: { message, type: code >= 500 ? 'server_error' : 'invalid_request_error', code: extra.code ?? null, param: null } };
  return extra.headers === undefined ? { type: 'status', status: code, body } : { type: 'status', status: code, body, headers: extra.headers };
}
