/**
 * `rateLimit.shared: true` on a Postgres store: two "processes" (two stores on two pools, two
 * kernels, two model instances of one provider and id) count in one window kept in the database.
 */
import { describe, expect, it } from 'vitest';
import { createKernel, postgresStore, withRateLimit, type KernelEvent } from 'dualloop';
import { scriptedModel } from 'dualloop/testing';
import { postgresUrl, useSchemas } from '../support/postgres.js';

const schema = useSchemas('rate');

describe('rateLimit.shared on postgresStore', () => {
  it('counts both processes\' calls in one window: the second waits for the first one\'s minute', async () => {
    const name = schema();
    const [one, two] = [0, 1].map(() => postgresStore({ connectionString: postgresUrl() }, { schema: name, maxConnections: 3 }));
    const model = () => withRateLimit(scriptedModel(() => ({ text: 'ok' }), { modelId: 'shared-model' }), { requestsPerMinute: 1, shared: true });

    const first = await createKernel({ model: model(), store: one! }).start(['first']).result;
    expect(first.stop.reason).toBe('goal_achieved');

    const events: KernelEvent[] = [];
    const run = createKernel({ model: model(), store: two!, bounds: { inner: { maxRuntimeMs: 1_500 } } }).start(['second']);
    for await (const event of run) events.push(event);
    const second = await run.result;
    // The minute's one call was the other process's: this one waits, past its runtime bound.
    expect(second.tasks[0]!.stop.reason).toBe('max_runtime');
    const wait = events.find((event) => event.type === 'rate_limit_wait') as { reason: string; waitMs: number; model: string } | undefined;
    expect(wait).toMatchObject({ reason: 'requests', model: 'scripted/shared-model' });
    expect(wait!.waitMs).toBeGreaterThan(50_000);
    await Promise.all([one!.close(), two!.close()]);
  });

  it('keeps each model key apart, settles real usage and honours a pause from any process', async () => {
    const name = schema();
    const [one, two] = [0, 1].map(() => postgresStore({ connectionString: postgresUrl() }, { schema: name, maxConnections: 2 }));
    const limit = { tokensPerMinute: 100 };
    const taken = await one!.takeRate('openai/a', limit, 80);
    expect(taken).toHaveProperty('id');
    expect(await two!.takeRate('openai/a', limit, 30)).toMatchObject({ reason: 'tokens' });
    expect(await two!.takeRate('openai/b', limit, 30)).toHaveProperty('id');
    await one!.settleRate('openai/a', (taken as { id: string }).id, 50);
    expect(await two!.takeRate('openai/a', limit, 30)).toHaveProperty('id');
    await two!.pauseRate('openai/b', 30_000);
    const paused = await one!.takeRate('openai/b', limit, 1);
    expect(paused).toMatchObject({ reason: 'retry_after' });
    expect((paused as { waitMs: number }).waitMs).toBeGreaterThan(25_000);
    await Promise.all([one!.close(), two!.close()]);
  });
});
