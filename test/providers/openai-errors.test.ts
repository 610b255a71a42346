import { describe, expect, it } from 'vitest';
import { redactSecrets, toFailure, type FailureContext } from '../../src/providers/openai-errors.js';

const KEY = 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWx';

const context: FailureContext = {
  phase: 'request',
  keySource: 'apiKey option',
  keyEnv: 'OPENAI_API_KEY',
  baseURL: 'https://user:pa55@gateway.example/v1',
  maxRetries: 2,
  timeoutMs: 1_000,
  secrets: [KEY],
};

describe('redactSecrets', () => {
  it('replaces an OpenAI-style masked key with one marker and keeps the sentence', () => {
    expect(redactSecrets('Incorrect API key provided: sk-proj-********************UvWx. See docs.', [KEY])).toBe(
      'Incorrect API key provided: [redacted]. See docs.',
    );
  });

  it('removes the exact key and any run of six or more of its characters', () => {
    const redacted = redactSecrets(`key=${KEY} tail=${KEY.slice(-8)} head=${KEY.slice(0, 12)}`, [KEY]);

    expect(redacted).not.toContain(KEY.slice(-6));
    expect(redacted).not.toContain('AbCdEf');
    expect(redacted).toBe('key=[redacted] tail=[redacted] head=[redacted]');
  });

  it('removes key-shaped tokens even when the key itself is unknown', () => {
    expect(redactSecrets('rejected sk-live-9f8e7d6c5b4a', [])).toBe('rejected [redacted]');
  });

  it('leaves ordinary text alone and caps very long messages', () => {
    expect(redactSecrets('Rate limit reached for gpt-4o', [KEY])).toBe('Rate limit reached for gpt-4o');
    expect(redactSecrets('x'.repeat(5_000), []).length).toBeLessThan(700);
  });
});

describe('toFailure', () => {
  it('maps statuses to stable codes', () => {
    const code = (status: number, apiCode?: string) => toFailure({ kind: 'status', status, apiCode, message: 'm' }, context).code;

    expect([code(401), code(403), code(404), code(400), code(422), code(429), code(500), code(418)]).toEqual([
      'auth_failed',
      'permission_denied',
      'not_found',
      'bad_request',
      'bad_request',
      'rate_limited',
      'server_error',
      'http_error',
    ]);
    expect(code(429, 'insufficient_quota')).toBe('quota_exceeded');
    expect(code(400, 'context_length_exceeded')).toBe('context_length_exceeded');
    expect(code(400, 'content_filter')).toBe('content_filter');
  });

  it('names the key source for auth failures and never shows URL credentials', () => {
    const auth = toFailure({ kind: 'status', status: 401, apiCode: undefined, message: 'no' }, { ...context, keySource: 'environment' });
    const connection = toFailure({ kind: 'connection', message: 'ECONNREFUSED' }, context);

    expect(auth.message).toContain('OPENAI_API_KEY environment variable');
    expect(connection.code).toBe('connection_failed');
    expect(connection.message).toContain('https://gateway.example/v1');
    expect(connection.message).not.toContain('pa55');
  });

  it('says what to check when no answer came: the server of a base URL, else the way to api.openai.com', () => {
    const custom = toFailure({ kind: 'connection', message: 'nothing listens there (ECONNREFUSED)', retried: false }, context);
    const openai = toFailure({ kind: 'connection', message: 'Connection error.' }, { ...context, baseURL: 'https://api.openai.com/v1' });

    expect(custom.message).toBe(
      'could not reach https://gateway.example/v1 (not retried: it would fail the same way): nothing listens there (ECONNREFUSED); check that the server is running and that baseURL (or OPENAI_BASE_URL) is its address',
    );
    expect(openai.message).toMatch(/: Connection error\.; check the network connection \(and any proxy\) to api\.openai\.com$/);
  });

  it('reports a broken connection as stream_interrupted once the stream has started', () => {
    expect(toFailure({ kind: 'connection', message: 'reset' }, { ...context, phase: 'stream' }).code).toBe('stream_interrupted');
    expect(toFailure({ kind: 'other', message: 'terminated' }, { ...context, phase: 'stream' }).code).toBe('stream_interrupted');
    expect(toFailure({ kind: 'other', message: 'bug' }, context).code).toBe('internal_error');
  });
});
