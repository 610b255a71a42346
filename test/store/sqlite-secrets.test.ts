import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, openaiModel, sqliteStore } from 'dualloop';
import { collectRun } from 'dualloop/testing';
import { status, textAnswer, toolCallAnswer } from '../support/openai-compatible-server.js';
import { isolateOpenAIEnvironment, SECRET, SECRET_PIECES, useServer } from '../providers/helpers.js';
import { useTempDir } from './temp-dir.js';

/* Secrets never reach the store: the bytes of the database file (and its WAL) are searched. */

isolateOpenAIEnvironment();
const server = useServer();
const directory = useTempDir('dualloop-secrets-');

const credentials = defineTool({
  name: 'read_credentials',
  description: 'returns the service credentials',
  parameters: z.object({ service: z.string() }),
  execute: ({ service }) => ({ service, apiKey: SECRET, header: `Bearer ${SECRET}`, note: `the key is ${SECRET}` }),
});

function storedBytes(dir: string): string {
  return readdirSync(dir)
    .map((file) => readFileSync(join(dir, file)).toString('latin1'))
    .join('\n');
}

describe('sqliteStore and secrets', () => {
  it('keeps neither the model API key nor a key returned by a tool or echoed by a provider error', async () => {
    server().enqueue(
      toolCallAnswer([{ id: 'call-1', name: 'read_credentials', fragments: ['{"service":', '"billing"}'] }]),
      textAnswer(['credentials read']),
      status(401, `Incorrect API key provided: ${SECRET}.`),
    );
    const path = join(directory(), 'runs.db');
    const store = sqliteStore({ path });
    const model = openaiModel({ model: 'test-model', baseURL: server().baseURL, apiKey: SECRET, maxRetries: 0 });
    const kernel = createKernel({ model, tools: [credentials], store });
    const { result } = await collectRun(kernel.start(['read the billing credentials', 'use them'], { runId: 'secret-run' }));

    expect(result.tasks[0]?.stop.reason).toBe('planner_stopped');
    expect(result.stop.reason).toBe('error');
    expect(store.getToolResult('secret-run', 'call-1')).toMatchObject({ executed: true, result: { service: 'billing' } });
    const bytesWhileOpen = storedBytes(directory());
    store.close();
    const bytesClosed = storedBytes(directory());

    expect(bytesClosed).toContain('billing');
    for (const bytes of [bytesWhileOpen, bytesClosed]) {
      for (const piece of SECRET_PIECES) expect(bytes.includes(piece), `"${piece}" found in the database files`).toBe(false);
    }
  });
});
