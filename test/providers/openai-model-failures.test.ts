import { describe, expect, it, vi } from 'vitest';
import { openaiModel } from '../../src/providers/openai-model.js';
import { chunk, startOpenAICompatibleServer, status, stream, textAnswer, type ScriptedResponse } from '../support/openai-compatible-server.js';
import { expectFailure, expectResponse, isolateOpenAIEnvironment, makeRequest, SECRET, SECRET_PIECES, useServer } from './helpers.js';

isolateOpenAIEnvironment();
const server = useServer();

/** Retries wait 1 ms: the server asks for it with `retry-after-ms`, which the SDK honours. */
const FAST_RETRY = { 'retry-after-ms': '1' };

function model(overrides: Partial<Parameters<typeof openaiModel>[0]> = {}) {
  return openaiModel({ model: 'test-model', baseURL: server().baseURL, apiKey: SECRET, maxRetries: 2, ...overrides });
}

function expectNoSecret(message: string): void {
  for (const piece of SECRET_PIECES) expect(message).not.toContain(piece);
}

describe('openaiModel authentication failures', () => {
  it('fails 401 without retrying, naming the apiKey option and hiding the masked key OpenAI echoes', async () => {
    server().enqueue(status(401, 'Incorrect API key provided: sk-test-**************3456. You can find your API key at https://platform.openai.com/account/api-keys.', { code: 'invalid_api_key' }));

    const failure = expectFailure(await model().call(makeRequest()));

    expect(failure.code).toBe('auth_failed');
    expect(failure.message).toContain('apiKey option');
    expect(failure.message).toContain('HTTP 401');
    expectNoSecret(failure.message);
    expect(server().requests).toHaveLength(1);
  });

  it('names OPENAI_API_KEY when the key came from the environment', async () => {
    vi.stubEnv('OPENAI_API_KEY', SECRET);
    server().enqueue(status(401, 'invalid key'));

    const failure = expectFailure(await openaiModel({ model: 'test-model', baseURL: server().baseURL }).call(makeRequest()));

    expect(failure.code).toBe('auth_failed');
    expect(failure.message).toContain('OPENAI_API_KEY');
    expect(server().requests[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
  });

  it('names the variable apiKeyEnv names, never OPENAI_API_KEY, when the key came from it', async () => {
    vi.stubEnv('MY_TEST_KEY', SECRET);
    vi.stubEnv('OPENAI_API_KEY', 'sk-not-this-one-000000');
    server().enqueue(status(401, 'invalid key'));

    const failure = expectFailure(await openaiModel({ model: 'test-model', baseURL: server().baseURL, apiKeyEnv: 'MY_TEST_KEY' }).call(makeRequest()));

    expect(failure.code).toBe('auth_failed');
    expect(failure.message).toContain('the key from the MY_TEST_KEY environment variable');
    expect(failure.message).not.toContain('OPENAI_API_KEY');
    expect(failure.message).not.toContain('apiKey option');
    expect(server().requests[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
  });

  it('without any key, names the variable apiKeyEnv names as the one to set', async () => {
    vi.stubEnv('MY_TEST_KEY', '');
    vi.stubEnv('OPENAI_BASE_URL', '');
    const failure = expectFailure(await openaiModel({ model: 'test-model', apiKeyEnv: 'MY_TEST_KEY' }).call(makeRequest()));
    expect(failure.code).toBe('auth_failed');
    expect(failure.message).toContain('set the MY_TEST_KEY environment variable');
    expect(failure.message).not.toContain('OPENAI_API_KEY');
  });

  it('fails 403 as permission_denied without retrying, even when the server echoes the whole header', async () => {
    server().enqueue((request) => status(403, `Project does not have access to model; got header ${request.headers.authorization}`));

    const failure = expectFailure(await model().call(makeRequest()));

    expect(failure.code).toBe('permission_denied');
    expect(failure.message).toContain('apiKey option');
    expectNoSecret(failure.message);
    expect(server().requests).toHaveLength(1);
  });

  it('never leaks the key, whole or in pieces, in any failure message', async () => {
    const leaks: ScriptedResponse[] = [
      status(400, `bad key ${SECRET}`),
      status(404, `model not found for key ending ${SECRET.slice(-6)}`),
      status(500, `crash while handling sk-test-SECRET-12****`, { headers: { 'x-should-retry': 'false' } }),
      stream([chunk.text('x'), chunk.error(`upstream rejected ${SECRET}`)]),
      status(422, `prefix ${SECRET.slice(0, 10)} is invalid`),
    ];
    server().enqueue(...leaks);

    for (let index = 0; index < leaks.length; index += 1) {
      const failure = expectFailure(await model({ maxRetries: 0 }).call(makeRequest()));
      expectNoSecret(failure.message);
    }
  });
});

describe('openaiModel retries', () => {
  it('retries a 429 and succeeds when the next attempt answers 200', async () => {
    server().enqueue(status(429, 'Rate limit reached', { headers: FAST_RETRY }), textAnswer(['recovered']));

    const response = expectResponse(await model().call(makeRequest()));

    expect(response.text).toBe('recovered');
    expect(server().requests).toHaveLength(2);
  });

  it('backs off by itself when the server gives no retry hint', async () => {
    server().enqueue(status(429, 'Rate limit reached'), textAnswer(['recovered']));

    const response = expectResponse(await model({ maxRetries: 1 }).call(makeRequest()));

    expect(response.text).toBe('recovered');
    expect(server().requests).toHaveLength(2);
  });

  it('fails rate_limited once maxRetries are spent', async () => {
    server().enqueue(...Array.from({ length: 3 }, () => status(429, 'Rate limit reached', { headers: FAST_RETRY })));

    const failure = expectFailure(await model({ maxRetries: 2 }).call(makeRequest()));

    expect(failure.code).toBe('rate_limited');
    expect(failure.message).toMatch(/after retrying up to 2 times/);
    expect(server().requests).toHaveLength(3);
  });

  it('reports an exhausted quota separately from a rate limit', async () => {
    server().enqueue(status(429, 'You exceeded your current quota', { code: 'insufficient_quota', headers: { 'x-should-retry': 'false' } }));

    const failure = expectFailure(await model().call(makeRequest()));

    expect(failure.code).toBe('quota_exceeded');
  });

  it('retries 5xx and succeeds', async () => {
    server().enqueue(status(502, 'Bad gateway', { headers: FAST_RETRY }), status(503, 'Overloaded', { headers: FAST_RETRY }), textAnswer(['up']));

    const response = expectResponse(await model().call(makeRequest()));

    expect(response.text).toBe('up');
    expect(server().requests).toHaveLength(3);
  });

  it('fails server_error once maxRetries are spent on 5xx', async () => {
    server().enqueue(status(500, 'boom', { headers: FAST_RETRY }), status(500, 'boom', { headers: FAST_RETRY }));

    const failure = expectFailure(await model({ maxRetries: 1 }).call(makeRequest()));

    expect(failure.code).toBe('server_error');
    expect(failure.message).toContain('HTTP 500');
    expect(server().requests).toHaveLength(2);
  });

  it('does not retry client errors', async () => {
    server().enqueue(
      status(400, "This model's maximum context length is 128000 tokens.", { code: 'context_length_exceeded' }),
      status(400, 'Invalid value for temperature'),
      status(404, 'The model `nope` does not exist', { code: 'model_not_found' }),
    );

    const codes = [];
    for (let index = 0; index < 3; index += 1) codes.push(expectFailure(await model().call(makeRequest())).code);

    expect(codes).toEqual(['context_length_exceeded', 'bad_request', 'not_found']);
    expect(server().requests).toHaveLength(3);
  });
});

describe('openaiModel transport failures', () => {
  it('fails connection_failed when nothing listens on the port', async () => {
    const gone = await startOpenAICompatibleServer();
    const baseURL = gone.baseURL;
    await gone.close();

    const failure = expectFailure(await model({ baseURL, maxRetries: 1 }).call(makeRequest()));

    expect(failure.code).toBe('connection_failed');
    expect(failure.message).toContain(baseURL.replace('/v1', ''));
  });

  it.each([
    { what: 'a refused connection (ECONNREFUSED)', cause: 'ECONNREFUSED', baseURL: async () => {
      const gone = await startOpenAICompatibleServer();
      await gone.close();
      return gone.baseURL;
    } },
    { what: 'a port fetch refuses ("bad port")', cause: 'bad port', baseURL: async () => 'http://127.0.0.1:6000/v1' },
  ])('does not retry $what: one attempt, said in the message', async ({ cause, baseURL }) => {
    const url = await baseURL();
    const attempts = vi.spyOn(globalThis, 'fetch');
    try {
      const failure = expectFailure(await model({ baseURL: url, maxRetries: 2 }).call(makeRequest()));
      expect(failure.code).toBe('connection_failed');
      expect(failure.message).toContain('not retried');
      expect(failure.message).toContain(cause);
      expect(attempts).toHaveBeenCalledTimes(1);
    } finally {
      attempts.mockRestore();
    }
  });

  it('fails stream_interrupted when the connection drops mid-stream, after streaming what arrived', async () => {
    server().enqueue(stream([chunk.role(), chunk.text('partial '), chunk.text('answer'), { cut: true }]));
    const request = makeRequest();

    const failure = expectFailure(await model().call(request));

    expect(failure.code).toBe('stream_interrupted');
    expect(request.deltas).toEqual(['partial ', 'answer']);
    expect(server().requests).toHaveLength(1);
  });

  it('fails stream_interrupted when the connection drops inside an event', async () => {
    server().enqueue(stream([chunk.text('a'), { raw: 'data: {"id":"chatcmpl-test","choices":[{"index":0,"del' }, { cut: true }]));

    const failure = expectFailure(await model().call(makeRequest()));

    expect(failure.code).toBe('stream_interrupted');
  });

  it('fails server_error when the server sends an error object inside the stream', async () => {
    server().enqueue(stream([chunk.text('a'), chunk.error('The server had an error while processing your request.')]));

    const failure = expectFailure(await model().call(makeRequest()));

    expect(failure.code).toBe('server_error');
    expect(failure.message).toContain('inside the stream');
  });

  it('fails bad_response on an event whose data is not JSON', async () => {
    server().enqueue(stream([chunk.text('a'), { raw: 'data: {not json}\n\n' }, chunk.done()]));

    const failure = expectFailure(await model().call(makeRequest()));

    expect(failure.code).toBe('bad_response');
  });

  it('fails timeout when no response headers arrive within timeoutMs', async () => {
    server().enqueue({ type: 'hang' });

    const failure = expectFailure(await model({ timeoutMs: 200 }).call(makeRequest()));

    expect(failure.code).toBe('timeout');
    expect(failure.message).toContain('200 ms');
    await server().requests[0]?.clientClosed;
  });

  it('fails timeout when a stream stalls within timeoutMs, and closes the connection', async () => {
    server().enqueue(stream([chunk.role(), chunk.text('slow'), { hang: true }]));
    const request = makeRequest();

    const failure = expectFailure(await model({ timeoutMs: 300 }).call(request));

    expect(failure.code).toBe('timeout');
    expect(request.deltas).toEqual(['slow']);
    await server().requests[0]?.clientClosed;
    expect(server().requests[0]?.closedByClient()).toBe(true);
  });

  it('resolves internal_error, not a rejection, when onTextDelta throws', async () => {
    server().enqueue(textAnswer(['a', 'b']));
    const request = makeRequest({
      onTextDelta: () => {
        throw new Error('sink broke');
      },
    });

    const failure = expectFailure(await model().call(request));

    expect(failure.code).toBe('internal_error');
    expect(failure.message).toContain('sink broke');
  });
});

describe('openaiModel cancellation', () => {
  it('aborts mid-stream: resolves aborted and the server sees the connection close', async () => {
    const controller = new AbortController();
    server().enqueue(stream([chunk.role(), chunk.text('first'), { hang: true }]));
    const request = makeRequest({ signal: controller.signal, onTextDelta: () => controller.abort() });

    const failure = expectFailure(await model().call(request));

    expect(failure.code).toBe('aborted');
    expect(request.deltas).toEqual(['first']);
    await server().requests[0]?.clientClosed;
    expect(server().requests[0]?.closedByClient()).toBe(true);
  });

  it('aborts while waiting for response headers', async () => {
    const controller = new AbortController();
    server().enqueue({ type: 'hang' });
    const call = model().call(makeRequest({ signal: controller.signal }));
    await vi.waitFor(() => expect(server().requests).toHaveLength(1));

    controller.abort();

    expect(expectFailure(await call).code).toBe('aborted');
    await server().requests[0]?.clientClosed;
  });

  it('aborts during a retry back-off without another attempt', async () => {
    const controller = new AbortController();
    server().enqueue(status(429, 'slow down', { headers: { 'retry-after-ms': '5000' } }), textAnswer(['never']));
    const call = model().call(makeRequest({ signal: controller.signal }));
    await vi.waitFor(() => expect(server().requests).toHaveLength(1));

    controller.abort();

    expect(expectFailure(await call).code).toBe('aborted');
    expect(server().requests).toHaveLength(1);
  });

  it('does not send anything when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();

    const failure = expectFailure(await model().call(makeRequest({ signal: controller.signal })));

    expect(failure.code).toBe('aborted');
    expect(server().requests).toHaveLength(0);
  });
});
