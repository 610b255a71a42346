// Part of the conformance suite (test/store/conformance.ts): the run lease.
import { describe, expect, it } from 'vitest';
import type { CheckpointStore } from 'dualloop';
import { runRecord, T0 } from './builders.js';

export function describeLeaseConformance(current: () => CheckpointStore): void {
  describe('leases', () => {
    it('grants a free run to the first holder and refuses another while the lease lives', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      expect(await store.acquireLease('run-a', 'host-a/pid-1', 30_000, T0)).toEqual({ acquired: true });
      expect(await store.acquireLease('run-a', 'host-b/pid-2', 30_000, T0 + 1_000)).toEqual({ acquired: false, holder: 'host-a/pid-1', expiresAt: T0 + 30_000 });
    });

    it('lets the holder renew, which moves the expiry', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      await store.acquireLease('run-a', 'a', 30_000, T0);
      expect(await store.acquireLease('run-a', 'a', 30_000, T0 + 20_000)).toEqual({ acquired: true });
      expect(await store.acquireLease('run-a', 'b', 30_000, T0 + 40_000)).toEqual({ acquired: false, holder: 'a', expiresAt: T0 + 50_000 });
    });

    it('lets another holder take over once the lease has expired (a dead holder blocks no one)', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      await store.acquireLease('run-a', 'dead', 30_000, T0);
      expect(await store.acquireLease('run-a', 'alive', 30_000, T0 + 29_999)).toMatchObject({ acquired: false, holder: 'dead' });
      expect(await store.acquireLease('run-a', 'alive', 30_000, T0 + 30_000)).toEqual({ acquired: true });
      expect(await store.acquireLease('run-a', 'dead', 30_000, T0 + 30_001)).toEqual({ acquired: false, holder: 'alive', expiresAt: T0 + 60_000 });
    });

    it('is released only by its holder', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      await store.acquireLease('run-a', 'a', 30_000, T0);
      await store.releaseLease('run-a', 'b');
      expect(await store.acquireLease('run-a', 'b', 30_000, T0 + 1)).toMatchObject({ acquired: false, holder: 'a' });
      await store.releaseLease('run-a', 'a');
      expect(await store.acquireLease('run-a', 'b', 30_000, T0 + 2)).toEqual({ acquired: true });
    });

    it('holds each run separately', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      await store.createRun(runRecord('run-b'));
      await store.acquireLease('run-a', 'a', 30_000, T0);
      expect(await store.acquireLease('run-b', 'b', 30_000, T0)).toEqual({ acquired: true });
      await store.releaseLease('run-b', 'b');
      expect(await store.acquireLease('run-a', 'b', 30_000, T0)).toMatchObject({ acquired: false, holder: 'a' });
    });

    it('gives a contested lease to exactly one of many holders', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      const answers = await Promise.all(['a', 'b', 'c', 'd'].map(async (holder) => ({ holder, answer: await store.acquireLease('run-a', holder, 30_000, T0) })));
      const winners = answers.filter(({ answer }) => answer.acquired);
      expect(winners).toHaveLength(1);
      for (const { answer } of answers) if (!answer.acquired) expect(answer.holder).toBe(winners[0]!.holder);
    });
  });
}
