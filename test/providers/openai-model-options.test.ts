import { describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { openaiModel, type OpenAIModelOptions } from '../../src/providers/openai-model.js';
import { status, textAnswer } from '../support/openai-compatible-server.js';
import { expectFailure, expectResponse, isolateOpenAIEnvironment, makeRequest, SECRET, SECRET_PIECES, useServer } from './helpers.js';

isolateOpenAIEnvironment();
const server = useServer();

function configError(options: unknown): ConfigError {
  try {
    openaiModel(options as OpenAIModelOptions);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('openaiModel option validation', () => {
  it('throws one ConfigError naming every bad field', () => {
    const error = configError({
      model: ' ',
      baseURL: 'not a url',
      temperature: 3,
      maxOutputTokens: 1.5,
      timeoutMs: 0,
      maxRetries: -1,
      pricing: { inputPerMillion: -1, outputPerMillion: 'free' },
      headers: { 'bad header': 'x' },
      baseUrl: 'http://typo.example',
    });

    expect(error.code).toBe('config_invalid');
    expect(error.issues.map((issue) => issue.path).sort()).toEqual(
      [
        'model',
        'baseURL',
        'temperature',
        'maxOutputTokens',
        'timeoutMs',
        'maxRetries',
        'pricing.inputPerMillion',
        'pricing.outputPerMillion',
        'headers.bad header',
        'baseUrl',
      ].sort(),
    );
    expect(error.message).toContain('baseUrl: unknown option');
  });

  it('does not throw without a key; the call fails auth_failed naming OPENAI_API_KEY without any request', async () => {
    const model = openaiModel({ model: 'gpt-4.1-mini' });

    const failure = expectFailure(await model.call(makeRequest()));

    expect(failure.code).toBe('auth_failed');
    expect(failure.message).toContain('OPENAI_API_KEY');
  });

  it('rejects an OPENAI_BASE_URL that is not a URL', () => {
    vi.stubEnv('OPENAI_BASE_URL', 'localhost:11434');

    expect(configError({ model: 'llama3.1' }).issues).toEqual([{ path: 'baseURL', message: 'OPENAI_BASE_URL must be an http(s) URL' }]);
  });
});

describe('openaiModel credentials and endpoints', () => {
  it('sends a placeholder key to a custom base URL when none is configured', async () => {
    server().enqueue(textAnswer(['local']));

    expectResponse(await openaiModel({ model: 'llama3.1', baseURL: server().baseURL }).call(makeRequest()));

    expect(server().requests[0]?.headers.authorization).toBe('Bearer not-needed');
  });

  it('reads OPENAI_BASE_URL and OPENAI_API_KEY when the options are absent', async () => {
    vi.stubEnv('OPENAI_BASE_URL', server().baseURL);
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-env');
    server().enqueue(textAnswer(['env']));

    expectResponse(await openaiModel({ model: 'm' }).call(makeRequest()));

    expect(server().requests[0]?.headers.authorization).toBe('Bearer sk-from-env');
  });

  it('prefers the apiKey option over OPENAI_API_KEY', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-env');
    server().enqueue(textAnswer(['option']));

    await openaiModel({ model: 'm', baseURL: server().baseURL, apiKey: 'sk-from-option' }).call(makeRequest());

    expect(server().requests[0]?.headers.authorization).toBe('Bearer sk-from-option');
  });

  it('sends the organization and custom headers, and only the variables it documents', async () => {
    vi.stubEnv('OPENAI_PROJECT_ID', 'proj_from_env');
    vi.stubEnv('OPENAI_ORG_ID', 'org_from_env');
    server().enqueue(textAnswer(['ok']));

    await openaiModel({
      model: 'm',
      baseURL: server().baseURL,
      apiKey: 'sk-x',
      organization: 'org-123',
      headers: { 'X-Title': 'dualloop tests', 'HTTP-Referer': 'https://example.test' },
    }).call(makeRequest());

    const headers = server().requests[0]?.headers;
    expect(headers?.['openai-organization']).toBe('org-123');
    expect(headers?.['x-title']).toBe('dualloop tests');
    expect(headers?.['http-referer']).toBe('https://example.test');
    expect(headers?.['openai-project']).toBeUndefined();
  });

  it('sends an Azure-style api-key header alone, and redacts it from failures', async () => {
    server().enqueue(textAnswer(['azure']), status(401, `Access denied due to invalid subscription key ${SECRET}`));
    const model = openaiModel({ model: 'my-deployment', baseURL: server().baseURL, headers: { 'api-key': SECRET } });

    expectResponse(await model.call(makeRequest()));
    const failure = expectFailure(await model.call(makeRequest()));

    expect(server().requests[0]?.headers['api-key']).toBe(SECRET);
    expect(server().requests[0]?.headers.authorization).toBeUndefined();
    expect(failure.code).toBe('auth_failed');
    expect(failure.message).toContain('headers option');
    for (const piece of SECRET_PIECES) expect(failure.message).not.toContain(piece);
  });
});
