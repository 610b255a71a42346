import { afterAll, afterEach, beforeAll, beforeEach, vi } from 'vitest';
import type { Message } from '../../src/contracts/messages.js';
import type { ModelFailure, ModelRequest, ModelResponse, ModelResult, ToolDescriptor } from '../../src/contracts/model.js';
import { startOpenAICompatibleServer, type OpenAICompatibleServer } from '../support/openai-compatible-server.js';

/** A fake key shaped like a real one; no failure message may contain it or a piece of it. */
export const SECRET = 'sk-test-SECRET-123456';
export const SECRET_PIECES = ['SECRET', '123456', 'sk-test', 'T-1234'] as const;

/** Every variable the SDK or the adapter reads; tests must not pick up the developer's real ones. */
const OPENAI_VARIABLES = [
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'OPENAI_ORG_ID',
  'OPENAI_PROJECT_ID',
  'OPENAI_ADMIN_KEY',
  'OPENAI_CUSTOM_HEADERS',
  'OPENAI_LOG',
  'OPENAI_WEBHOOK_SECRET',
] as const;

export function isolateOpenAIEnvironment(): void {
  beforeEach(() => {
    for (const name of OPENAI_VARIABLES) vi.stubEnv(name, undefined);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });
}

/** One server for the file, emptied after each test. */
export function useServer(): () => OpenAICompatibleServer {
  let server: OpenAICompatibleServer | undefined;
  beforeAll(async () => {
    server = await startOpenAICompatibleServer();
  });
  afterEach(() => server?.reset());
  afterAll(async () => {
    await server?.close();
  });
  return () => {
    if (server === undefined) throw new Error('server not started');
    return server;
  };
}

export interface RecordingRequest extends ModelRequest {
  readonly deltas: string[];
}

export function makeRequest(
  overrides: { messages?: readonly Message[]; tools?: readonly ToolDescriptor[]; signal?: AbortSignal; callIndex?: number; onTextDelta?: (delta: string) => void } = {},
): RecordingRequest {
  const deltas: string[] = [];
  return {
    messages: overrides.messages ?? [{ role: 'user', content: 'Say hello.' }],
    tools: overrides.tools ?? [],
    signal: overrides.signal ?? new AbortController().signal,
    callIndex: overrides.callIndex ?? 0,
    onTextDelta: (delta) => {
      deltas.push(delta);
      overrides.onTextDelta?.(delta);
    },
    deltas,
  };
}

export function expectResponse(result: ModelResult): ModelResponse {
  if (result.type !== 'response') throw new Error(`expected a response, got failure ${result.code}: ${result.message}`);
  return result;
}

export function expectFailure(result: ModelResult): ModelFailure {
  if (result.type !== 'failure') throw new Error(`expected a failure, got a response: ${JSON.stringify(result)}`);
  return result;
}

/** A promise and the function that resolves it. */
export function gate(): { readonly promise: Promise<void>; readonly open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}
