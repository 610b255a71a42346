import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createKernel, defineTool, memoryStore, sqliteStore, type CheckpointEntry, type CheckpointStore, type Message } from 'dualloop';
import { collectRun, manualClock, scriptedModel } from 'dualloop/testing';
import { useTempDir } from '../store/temp-dir.js';

/*
 * Checkpoint format 2 (ADR/0120): what a turn appends to the store does not depend on how long
 * the run is. One task of 1,000 turns, every turn the same size (fixed-width tool call ids and
 * arguments), the default compactor rewriting the transcript every turn after the 21st: the
 * bytes turn 1,000 appends equal turn 10's within the size of the turn's own messages (the
 * compactor's note being one of them) and of its compaction's events, and turn 30's up to the
 * digits of the counters.
 */

const directory = useTempDir('dualloop-append-');
const TURNS = 1000;
const width = (value: number) => String(value).padStart(6, '0');

const echo = defineTool({
  name: 'echo',
  description: 'echoes a token',
  parameters: z.object({ token: z.string() }),
  execute: ({ token }) => ({ echoed: token }),
});

async function longRun(store: CheckpointStore) {
  const model = scriptedModel(({ index }) => ({
    toolCalls: [{ name: 'echo', args: { token: width(index) }, id: `call-${width(index)}` }],
    usage: { inputTokens: 100, outputTokens: 10 },
  }));
  const kernel = createKernel({
    model,
    tools: [echo],
    store,
    clock: manualClock(),
    bounds: { inner: { maxTurns: TURNS + 1, maxToolCalls: TURNS + 1 } },
  });
  const { result } = await collectRun(kernel.start(['echo tokens for a long time'], { runId: 'long-run' }));
  expect(result.tasks[0]?.stop.reason).toBe('max_turns');
  return (await store.listCheckpoints('long-run')).filter((line) => line.kind === 'turn');
}

/** The JSON size of the turn's own messages: the assistant's call and the tool's answer. */
function ownMessagesBytes(turn: number): number {
  const index = turn - 1;
  const messages: Message[] = [
    { role: 'assistant', content: '', toolCalls: [{ id: `call-${width(index)}`, name: 'echo', args: { token: width(index) } }] },
    { role: 'tool', toolCallId: `call-${width(index)}`, name: 'echo', content: JSON.stringify({ echoed: width(index) }), isError: false },
  ];
  return Buffer.byteLength(JSON.stringify(messages));
}

/**
 * Turn 1,000 (and 30) also carries the compactor's note, a message of that turn; past that, only
 * the counters' digits differ: turn 30 and turn 1,000, both compacted, are within a few bytes.
 */
async function expectSameSize(bytesAt: (turn: number) => number | Promise<number>, compactionEventBytes = 0): Promise<void> {
  const [at10, at30, at1000] = [await bytesAt(10), await bytesAt(30), await bytesAt(TURNS)];
  expect(Math.abs(at1000 - at10)).toBeLessThanOrEqual(ownMessagesBytes(TURNS) + compactionEventBytes);
  expect(Math.abs(at1000 - at30)).toBeLessThan(64);
}

describe('what a turn appends (checkpoint format 2)', () => {
  it('memoryStore: the entry of turn 1,000 is the size of turn 10’s', async () => {
    const store = memoryStore();
    const turns = await longRun(store);
    const entryBytes = async (turn: number) => {
      const line = turns.find((item) => item.turn === turn)!;
      expect(line.snapshot).toBe(false);
      const entry = (await store.loadCheckpoint('long-run', { sequence: line.sequence }))!.entries.at(-1) as CheckpointEntry;
      expect(entry.sequence).toBe(line.sequence);
      return Buffer.byteLength(JSON.stringify(entry));
    };
    await expectSameSize(entryBytes);
  });

  it('sqliteStore: the rows turn 1,000 appends (entry, events, tool result) weigh what turn 10’s do', async () => {
    const path = join(directory(), 'runs.db');
    const store = sqliteStore({ path });
    const turns = await longRun(store);
    store.close();
    const database = new DatabaseSync(path, { readOnly: true });
    const rowBytes = (turn: number) => {
      const line = turns.find((item) => item.turn === turn)!;
      expect(line.snapshot).toBe(false);
      const bytes = (sql: string, ...parameters: (string | number)[]) => Number((database.prepare(sql).get(...parameters) as { bytes: number | null }).bytes ?? 0);
      const entry = bytes('SELECT sum(length(CAST(body AS BLOB))) AS bytes FROM checkpoint_entries WHERE sequence = ?', line.sequence);
      const results = bytes('SELECT sum(length(CAST(body AS BLOB))) AS bytes FROM checkpoint_results WHERE sequence = ?', line.sequence);
      const events = bytes("SELECT sum(length(CAST(body AS BLOB))) AS bytes FROM events WHERE json_extract(body, '$.turn') = ?", turn);
      const tools = bytes('SELECT sum(length(CAST(body AS BLOB))) AS bytes FROM tool_results WHERE tool_call_id = ?', `call-${width(turn - 1)}`);
      expect([entry, events, tools].every((part) => part > 0)).toBe(true);
      return entry + results + events + tools;
    };
    // A compacting turn (turn 1,000; not turn 10) also logs its compaction's two events (ADR/0233).
    const compaction = Number(
      (database.prepare("SELECT sum(length(CAST(body AS BLOB))) AS bytes FROM events WHERE type IN ('compaction_start', 'compaction_end') AND json_extract(body, '$.turn') = ?").get(TURNS) as { bytes: number | null }).bytes ?? 0,
    );
    try {
      expect(compaction).toBeGreaterThan(0);
      expect(compaction).toBeLessThan(400);
      await expectSameSize(rowBytes, compaction);
    } finally {
      database.close();
    }
  });

  it('snapshots double in spacing, so their bytes stay within the turn entries’ own', async () => {
    const store = memoryStore();
    const turns = await longRun(store);
    expect(turns.filter((line) => line.snapshot).map((line) => line.turn)).toEqual([64, 128, 256, 512]);
    let snapshotBytes = 0;
    let entryBytes = 0;
    for (const line of turns) {
      const entry = (await store.loadCheckpoint('long-run', { sequence: line.sequence }))!.entries.at(-1) as CheckpointEntry;
      snapshotBytes += Buffer.byteLength(JSON.stringify(entry.snapshot ?? null));
      entryBytes += Buffer.byteLength(JSON.stringify({ ...entry, snapshot: undefined }));
    }
    expect(snapshotBytes).toBeLessThan(entryBytes);
  });
});
