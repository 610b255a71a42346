import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { defineTool } from 'dualloop';
import { chunk, stream, textAnswer, type ScriptedResponse } from '../support/openai-compatible-server.js';

/*
 * Secrets of every kind the kernel must keep out of what it records and reports, and a run that
 * spreads them everywhere: the model streams the key split across deltas and passes it (and the
 * custom header's value) as tool-call arguments; a tool returns the database password, a JWT, a
 * bearer credential and an unconfigured key; the model's answer echoes them.
 */

/** The provider's `apiKey`. */
export const API_KEY = 'sk-proj-AbCdEf0123456789xyzQ';
/** The value of a custom credential header (`x-custom-auth`): not key-shaped, configured only. */
export const HEADER_VALUE = 'custom-auth-9f8e7d6c5b4a';
/** A value given in the `redact` option (or named by a manifest's `secrets:`). */
export const DB_PASSWORD = 'correct-horse-battery-staple';
/** Key-shaped tokens nobody configured. */
export const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ';
export const BEARER_TOKEN = 'abcDEF123456ghiJKLmno';
export const LOOSE_KEY = 'sk-unconfigured-0123456789abcdef';

export const SECRETS = [API_KEY, HEADER_VALUE, DB_PASSWORD, JWT, BEARER_TOKEN, LOOSE_KEY] as const;

/** Every secret found in `text`, with the piece of text around it, so a failure says where. */
export function leaks(text: string): string[] {
  const found: string[] = [];
  for (const secret of SECRETS) {
    let at = text.indexOf(secret);
    while (at >= 0) {
      found.push(`${secret} in …${text.slice(Math.max(0, at - 80), at + secret.length + 40)}…`);
      at = text.indexOf(secret, at + 1);
    }
  }
  return found;
}

/** Every file of `directory` whose name starts with `prefix` (a SQLite file and its -wal, -shm), as text. */
export function filesText(directory: string, prefix: string): string {
  return readdirSync(directory)
    .filter((name) => name.startsWith(prefix))
    .map((name) => readFileSync(join(directory, name)).toString('latin1'))
    .join('\n');
}

/** Returns the secrets a tool might read from a config file or an API; reports progress with one. */
export const fetchReport = defineTool({
  name: 'fetch_report',
  description: 'Fetches the report',
  parameters: z.object({ token: z.string(), auth: z.string(), url: z.string() }),
  execute: (_args, context) => {
    context.update({ stage: `connecting with ${DB_PASSWORD}` });
    return {
      body: `db password: ${DB_PASSWORD}`,
      jwt: JWT,
      header: `Authorization: Bearer ${BEARER_TOKEN}`,
      nested: { deep: [{ leftover: LOOSE_KEY }] },
    };
  },
});

/** Turn 1: text streaming the key in pieces, then the tool call with the secrets as arguments. */
export function firstAnswer(): ScriptedResponse {
  const args = JSON.stringify({ token: API_KEY, auth: HEADER_VALUE, url: `https://example.test/report?key=${encodeURIComponent(API_KEY)}` });
  return stream([
    chunk.role(),
    chunk.text('Calling with key '),
    chunk.text(API_KEY.slice(0, 5)),
    chunk.text(`${API_KEY.slice(5, 12)}`),
    chunk.text(`${API_KEY.slice(12)} and header ${HEADER_VALUE.slice(0, 7)}`),
    chunk.text(`${HEADER_VALUE.slice(7)}.`),
    chunk.toolCall({ index: 0, id: 'call_report', name: 'fetch_report', arguments: '' }),
    chunk.toolCall({ index: 0, arguments: args.slice(0, 20) }),
    chunk.toolCall({ index: 0, arguments: args.slice(20) }),
    chunk.finish('tool_calls'),
    chunk.usage(20, 10),
    chunk.done(),
  ]);
}

/** Turn 2: the answer echoes every secret. */
export function secondAnswer(): ScriptedResponse {
  return textAnswer([`Done. Password ${DB_PASSWORD.slice(0, 9)}`, `${DB_PASSWORD.slice(9)}, token ${JWT}, bearer ${BEARER_TOKEN}, key ${API_KEY}, ${LOOSE_KEY}.`]);
}

export const TASK = `Fetch the report (the database password is ${DB_PASSWORD}).`;
