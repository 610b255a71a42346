/**
 * The growth figure, in its own process (started by run.mjs with --expose-gc):
 *   node --expose-gc bench/growth.mjs '<json spec>'
 *
 * One run of `tasks` tasks × 10 turns on `sqliteStore` (a checkpoint after every turn), after a
 * shorter warm-up run in the same process. Per task: µs per turn, wall and CPU (from its `task_start` to the
 * next task's, so its CHECKPOINT and the next TASK_SELECT are counted) and the bytes the store
 * wrote during it — what the main thread handed to write(2) (`wchar` of its /proc/self/task/<pid>/io:
 * the WAL frames its commits append), the physical cost — and the logical bytes of the rows it
 * added. The WAL worker's copying of those pages into the database file (ADR/0391) is left out: it
 * lands in whichever task runs when a round starts, not in the turns that wrote the pages.
 * Prints one line `RESULT <json>`.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { distFile, loadDualloop } from './systems/dualloop-common.mjs';
import { add, ADD_DESCRIPTION, scriptStep, TURNS } from './lib/workload.mjs';

const spec = JSON.parse(process.argv[2] ?? '{}');
const { createKernel, defineTool, sqliteStore } = await loadDualloop();
const { z } = await import(new URL('node_modules/zod/index.js', distFile('../../')).href);
const directory = mkdtempSync(join(tmpdir(), 'dualloop-bench-growth-'));
process.on('exit', () => rmSync(directory, { recursive: true, force: true }));

/** Bytes the main thread has passed to write(2) so far (Linux; its thread id is the pid); undefined elsewhere. */
function writtenBytes() {
  try {
    return Number(/^wchar: (\d+)$/m.exec(readFileSync(`/proc/self/task/${process.pid}/io`, 'utf8'))[1]);
  } catch {
    return undefined;
  }
}

/** Process CPU time (user + system) in µs: steadier than wall time on shared cores (ADR 0123). */
function cpuMicroseconds() {
  const used = process.cpuUsage();
  return used.user + used.system;
}

const tool = defineTool({ name: 'add', description: ADD_DESCRIPTION, parameters: z.object({ a: z.number(), b: z.number() }), execute: (args) => add(args) });

/** Decides from the running task's transcript (tool results since the last user message), as the other systems do. */
const model = {
  provider: 'bench',
  modelId: 'scripted',
  async call({ messages }) {
    let index = 0;
    let task = 0;
    for (const message of messages) {
      if (message.role === 'user') index = 0;
      else if (message.role === 'tool') index += 1;
    }
    for (const message of messages) if (message.role === 'user') task += 1;
    const step = scriptStep(index);
    const usage = { inputTokens: 10, outputTokens: 5 };
    return step.kind === 'tool'
      ? { type: 'response', text: '', toolCalls: [{ id: `t${task}-${step.id}`, name: 'add', args: step.args }], usage, costUsd: 0, finishReason: 'tool_calls' }
      : { type: 'response', text: step.text, toolCalls: [], usage, costUsd: 0, finishReason: 'stop' };
  },
};

async function growthRun(path, tasks) {
  const store = sqliteStore({ path });
  const kernel = createKernel({
    model,
    tools: [tool],
    store,
    bounds: { inner: { maxTurns: TURNS + 5, maxToolCalls: TURNS + 5 }, outer: { maxWorkflowSteps: tasks + 1 } },
  });
  const descriptions = Array.from({ length: tasks }, (_, index) => `sum, part ${index + 1}`);
  const run = kernel.start(descriptions, { runId: 'growth' });
  const marks = [];
  for await (const event of run) {
    if (event.type === 'task_start') marks.push({ task: event.taskIndex, at: performance.now(), cpu: cpuMicroseconds(), written: writtenBytes() });
    if (event.type === 'workflow_end') marks.push({ task: tasks, at: performance.now(), cpu: cpuMicroseconds(), written: writtenBytes() });
  }
  const result = await run.result;
  if (result.tasks.length !== tasks || result.stop.reason !== 'goal_achieved') throw new Error(`growth run ended ${result.stop.reason} after ${result.tasks.length} tasks`);
  store.close?.();
  return marks;
}

/** Logical bytes of the rows each task added: its checkpoint entries, result, events and tool results. */
function rowBytesByTask(path, tasks) {
  const database = new DatabaseSync(path, { readOnly: true });
  const bytes = new Array(tasks).fill(0);
  const addRows = (sql) => {
    for (const row of database.prepare(sql).all()) if (row.task !== null && row.task >= 0 && row.task < tasks) bytes[row.task] += Number(row.bytes);
  };
  addRows('SELECT task_index AS task, sum(length(CAST(body AS BLOB))) AS bytes FROM checkpoint_entries GROUP BY task_index');
  addRows('SELECT position AS task, sum(length(CAST(body AS BLOB))) AS bytes FROM checkpoint_results GROUP BY position');
  addRows("SELECT json_extract(body, '$.taskIndex') AS task, sum(length(CAST(body AS BLOB))) AS bytes FROM events GROUP BY task");
  addRows("SELECT CAST(substr(tool_call_id, 2, instr(tool_call_id, '-') - 2) AS INTEGER) - 1 AS task, sum(length(CAST(body AS BLOB))) AS bytes FROM tool_results GROUP BY task");
  database.close();
  return bytes;
}

await growthRun(join(directory, 'warmup.db'), spec.warmupTasks);
globalThis.gc?.();
const path = join(directory, 'growth.db');
const marks = await growthRun(path, spec.tasks);
const rowBytes = rowBytesByTask(path, spec.tasks);
const perTask = [];
for (let task = 0; task < spec.tasks; task += 1) {
  const [from, to] = [marks[task], marks[task + 1]];
  perTask.push({
    task,
    usPerTurn: ((to.at - from.at) * 1000) / TURNS,
    cpuUsPerTurn: (to.cpu - from.cpu) / TURNS,
    writtenBytesPerTurn: from.written === undefined ? undefined : (to.written - from.written) / TURNS,
    rowBytesPerTurn: rowBytes[task] / TURNS,
  });
}
const fileBytes = statSync(path).size;
process.stdout.write(`RESULT ${JSON.stringify({ protocol: 'growth', tasks: spec.tasks, turnsPerTask: TURNS, perTask, fileBytes })}\n`);
process.exit(0);
