import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { approveRun, cancelRun, ConfigError, createKernel, defineTool, steerRun } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { storeKinds } from '../control/control-stores.js';
import { sql } from '../support/postgres.js';
import { filesText } from './secrets-fixture.js';

/*
 * Issue 15 item 1, ADR 0301: a command sent to a run from another process (steer, a cancel or
 * approval reason) travels through the store and stays there. It is redacted before it is
 * written: key-shaped tokens always, configured values given as `redact`. No byte of the SQLite
 * file, no Postgres row holds them; the run receives the command as written.
 */

const CONFIGURED = 'Zq9:only-the-sender-knows';
const TOKEN = 'xoxp-2024-steer-0123456789';

const deploy = defineTool({ name: 'deploy', description: 'Deploys.', parameters: z.object({}), execute: () => 'deployed' });

/** Everything the store keeps, as text: the SQLite file and its WAL, or every row of the Postgres schema. */
async function storeText(target: string): Promise<string> {
  if (!target.startsWith('postgres')) return filesText(dirname(target), 'runs.db');
  const schema = new URL(target).searchParams.get('schema')!;
  const tables = await sql<{ table_name: string }>('SELECT table_name FROM information_schema.tables WHERE table_schema = $1', [schema]);
  const rows = await Promise.all(tables.map(({ table_name }) => sql(`SELECT * FROM "${schema}"."${table_name}"`)));
  return JSON.stringify(rows, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value));
}

describe.each(storeKinds())('commands through the $name store', ({ open }) => {
  it('steer, approve and cancel reasons are stored redacted; the run gets the redacted message', async () => {
    const { runner, sender, target, close } = open();
    const model = scriptedModel([{ toolCalls: [{ name: 'deploy', args: {}, id: 'call-deploy' }] }, { text: 'deployed' }]);
    const kernel = createKernel({
      model,
      tools: [deploy],
      store: runner,
      policy: { checkToolCall: () => ({ decision: 'require_approval', reason: 'a human decides' }) },
    });
    expect((await kernel.start(['ship'], { runId: 'parked' }).result).stop.reason).toBe('awaiting_approval');

    await steerRun(sender, 'parked', `use ${CONFIGURED} and ${TOKEN}`, { redact: [CONFIGURED] });
    await approveRun(sender, 'parked', { answer: 'approve', reason: `ok with ${TOKEN}`, redact: [CONFIGURED] });
    const resumed = await (await kernel.resume('parked')).result;
    expect(resumed.stop.reason).toBe('goal_achieved');
    const steered = model.calls[1]!.messages.find((message) => message.role === 'user' && message.content.startsWith('use '));
    expect(steered?.content).toBe('use [redacted] and [redacted]');

    expect((await kernel.start(['again'], { runId: 'to-cancel' }).result).stop.reason).toBe('awaiting_approval');
    await cancelRun(sender, 'to-cancel', { reason: `because ${CONFIGURED}`, redact: [CONFIGURED] });
    await close();

    const text = await storeText(target);
    expect(text).toContain('[redacted]');
    expect(text).not.toContain(CONFIGURED);
    expect(text).not.toContain(TOKEN);
  });
});

describe('the redact option of a command', () => {
  it('refuses a value too short to redact safely, before anything is sent', async () => {
    const store = { kind: 'none' } as never;
    await expect(steerRun(store, 'run', 'hello', { redact: ['abc', 'long-enough'] })).rejects.toBeInstanceOf(ConfigError);
    await expect(cancelRun(store, 'run', { redact: ['x'] })).rejects.toThrow(/redact\.0: must be a string of at least 4 characters/);
  });
});
