// Part of the conformance suite (test/store/conformance.ts): the run lease and its fencing token
// (ADR/0180). Expiry is the store's to judge, on its own clock (ADR/0182): these tests wait for
// short leases to run out instead of passing a time.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { CheckpointStore, LeaseResult } from 'dualloop';
import { event, runRecord, taskEntry, toolResult, workflowResult } from './builders.js';
import { failureOf } from './conformance.js';

function granted(result: LeaseResult): { token: number; expiresAt: number } {
  if (!result.acquired) throw new Error(`expected the lease, held by ${result.holder}`);
  return result;
}

export function describeLeaseConformance(current: () => CheckpointStore): void {
  describe('leases', () => {
    it('grants a free run to the first holder, with a token and an expiry, and refuses another while the lease lives', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      const first = granted(await store.acquireLease('run-a', 'host-a/pid-1', 30_000));
      expect(first.token).toBeGreaterThan(0);
      expect(first.expiresAt).toBeGreaterThan(Date.now() + 20_000);
      expect(await store.acquireLease('run-a', 'host-b/pid-2', 30_000)).toEqual({ acquired: false, holder: 'host-a/pid-1', expiresAt: first.expiresAt });
    });

    it('lets the holder renew, which keeps the token and moves the expiry', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      const first = granted(await store.acquireLease('run-a', 'a', 10_000));
      const renewed = granted(await store.acquireLease('run-a', 'a', 30_000));
      expect(renewed.token).toBe(first.token);
      expect(renewed.expiresAt).toBeGreaterThan(first.expiresAt);
      expect(await store.acquireLease('run-a', 'b', 30_000)).toEqual({ acquired: false, holder: 'a', expiresAt: renewed.expiresAt });
    });

    it('lets another holder take over once the lease has expired, with a larger token', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      const dead = granted(await store.acquireLease('run-a', 'dead', 150));
      expect(await store.acquireLease('run-a', 'alive', 30_000)).toMatchObject({ acquired: false, holder: 'dead' });
      await sleep(400);
      const alive = granted(await store.acquireLease('run-a', 'alive', 30_000));
      expect(alive.token).toBeGreaterThan(dead.token);
      expect(await store.acquireLease('run-a', 'dead', 30_000)).toEqual({ acquired: false, holder: 'alive', expiresAt: alive.expiresAt });
    });

    it('takes over from a named holder only while that holder still holds the lease', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      const crashed = granted(await store.acquireLease('run-a', 'crashed', 30_000));
      const heir = granted(await store.acquireLease('run-a', 'heir', 30_000, { takeOverFrom: 'crashed' }));
      expect(heir.token).toBeGreaterThan(crashed.token);
      expect(await store.acquireLease('run-a', 'late', 30_000, { takeOverFrom: 'crashed' })).toMatchObject({ acquired: false, holder: 'heir' });
    });

    it('is released only by its holder, and the next holder still gets a larger token', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      const first = granted(await store.acquireLease('run-a', 'a', 30_000));
      await store.releaseLease('run-a', 'b');
      expect(await store.acquireLease('run-a', 'b', 30_000)).toMatchObject({ acquired: false, holder: 'a' });
      await store.releaseLease('run-a', 'a');
      const second = granted(await store.acquireLease('run-a', 'b', 30_000));
      expect(second.token).toBeGreaterThan(first.token);
      await store.releaseLease('run-a', 'b');
      expect(granted(await store.acquireLease('run-a', 'a', 30_000)).token).toBeGreaterThan(second.token);
    });

    it('holds each run separately', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      await store.createRun(runRecord('run-b'));
      await store.acquireLease('run-a', 'a', 30_000);
      expect(await store.acquireLease('run-b', 'b', 30_000)).toMatchObject({ acquired: true });
      await store.releaseLease('run-b', 'b');
      expect(await store.acquireLease('run-a', 'b', 30_000)).toMatchObject({ acquired: false, holder: 'a' });
    });

    it('gives a contested lease to exactly one of many holders', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      const answers = await Promise.all(['a', 'b', 'c', 'd'].map(async (holder) => ({ holder, answer: await store.acquireLease('run-a', holder, 30_000) })));
      const winners = answers.filter(({ answer }) => answer.acquired);
      expect(winners).toHaveLength(1);
      for (const { answer } of answers) if (!answer.acquired) expect(answer.holder).toBe(winners[0]!.holder);
    });
  });

  describe('fenced writes', () => {
    it('accepts every write under the current token', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      const { token } = granted(await store.acquireLease('run-a', 'a', 30_000));
      await store.appendEvent(event('run-a', 1), token);
      await store.recordToolResult('run-a', toolResult('call-1'), token);
      await store.saveCheckpoint(taskEntry('run-a', 1, 1), token);
      await store.saveResult(workflowResult('run-a'), token);
      expect(await store.readEvents('run-a')).toEqual([event('run-a', 1)]);
      expect(await store.getToolResult('run-a', 'call-1')).toEqual(toolResult('call-1'));
      expect(await store.listCheckpoints('run-a')).toHaveLength(1);
      expect(await store.loadResult('run-a')).toEqual(workflowResult('run-a'));
    });

    it('refuses every write under a token another holder replaced, and stores none of it', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      const old = granted(await store.acquireLease('run-a', 'old', 30_000));
      await store.appendEvent(event('run-a', 1), old.token);
      const taken = granted(await store.acquireLease('run-a', 'new', 30_000, { takeOverFrom: 'old' }));
      const writes: (() => unknown)[] = [
        () => store.appendEvent(event('run-a', 2), old.token),
        () => store.recordToolResult('run-a', toolResult('call-1'), old.token),
        () => store.saveCheckpoint(taskEntry('run-a', 1, 1), old.token),
        () => store.saveResult(workflowResult('run-a'), old.token),
      ];
      for (const write of writes) {
        const error = await failureOf(async () => {
          await write();
          // A store may queue an event and refuse it when the queue is written: a read settles it.
          await store.readEvents('run-a');
          await store.appendEvent(event('run-a', 9), old.token);
        });
        expect(error.code).toBe('lease_lost');
        expect(error.message).toContain('run-a');
      }
      expect(await store.readEvents('run-a')).toEqual([event('run-a', 1)]);
      expect(await store.getToolResult('run-a', 'call-1')).toBeUndefined();
      expect(await store.listCheckpoints('run-a')).toEqual([]);
      expect(await store.loadResult('run-a')).toBeUndefined();
      await store.appendEvent(event('run-a', 2), taken.token);
      expect((await store.readEvents('run-a')).map((item) => item.seq)).toEqual([1, 2]);
    });

    it('refuses a write under a lease that expired, even when nobody took the run over', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      const { token } = granted(await store.acquireLease('run-a', 'slow', 150));
      await sleep(400);
      const error = await failureOf(() => store.saveCheckpoint(taskEntry('run-a', 1, 1), token));
      expect(error.code).toBe('lease_lost');
      expect(await store.listCheckpoints('run-a')).toEqual([]);
    });

    it('refuses a write under a released lease', async () => {
      const store = current();
      await store.createRun(runRecord('run-a'));
      const { token } = granted(await store.acquireLease('run-a', 'a', 30_000));
      await store.releaseLease('run-a', 'a');
      expect((await failureOf(() => store.saveResult(workflowResult('run-a'), token))).code).toBe('lease_lost');
      expect(await store.loadResult('run-a')).toBeUndefined();
    });
  });
}
