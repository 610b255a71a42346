/**
 * dualloop as users run it: `createKernel` once, `kernel.start()` per run, every event consumed
 * with `for await`, default bounds (turn and tool-call bounds set to 15), loop detection on, a
 * checkpoint after every turn in the given store. Loaded from the root build (`dist/`), with the
 * root's zod so tool schemas come from the same zod as the kernel's.
 */
import { pathToFileURL } from 'node:url';
import { rootEntry } from '../lib/import-time.mjs';
import { TURNS, add, ADD_DESCRIPTION, expectFinal, scriptStep } from '../lib/workload.mjs';

/** The dualloop checkout to measure: this repository, or `DUALLOOP_ROOT` (e.g. a patched copy). */
export const dualloopRoot = process.env.DUALLOOP_ROOT === undefined ? new URL('../../', import.meta.url) : pathToFileURL(`${process.env.DUALLOOP_ROOT.replace(/\/$/, '')}/`);
const dist = new URL('dist/src/', dualloopRoot);
const rootZod = new URL('node_modules/zod/index.js', dualloopRoot);

/**
 * The package's root entry, as `import('dualloop')` resolves it (the bundle, ADR/0381), or with
 * DUALLOOP_UNBUNDLED=1 tsc's modules in dist/src (bench/profile.mjs then names dualloop's folders).
 */
export async function loadDualloop() {
  return import(process.env.DUALLOOP_UNBUNDLED === '1' ? new URL('index.js', dist).href : rootEntry(dualloopRoot).href);
}

export function distFile(path) {
  return new URL(path, dist);
}

/**
 * The kernel options of the bench workload: the `add` tool, the scripted model answering by the
 * transcript (paced by `env.pacer`), turn and tool-call bounds set to 15. Also what the workers
 * bench's worker processes build per run.
 */
export async function benchKernelOptions(env, dualloop = undefined) {
  const { defineTool } = dualloop ?? (await loadDualloop());
  const { z } = await import(rootZod.href);
  const tool = defineTool({
    name: 'add',
    description: ADD_DESCRIPTION,
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: (args) => add(args),
  });
  const model = {
    provider: 'bench',
    modelId: 'scripted',
    async call({ messages }) {
      const index = messages.reduce((count, message) => (message.role === 'tool' ? count + 1 : count), 0);
      if (env.pacer.wait !== undefined) await env.pacer.wait(index);
      const step = scriptStep(index, env.turns);
      const usage = { inputTokens: 10, outputTokens: 5 };
      return step.kind === 'tool'
        ? { type: 'response', text: '', toolCalls: [{ id: step.id, name: 'add', args: step.args }], usage, costUsd: 0, finishReason: 'tool_calls' }
        : { type: 'response', text: step.text, toolCalls: [], usage, costUsd: 0, finishReason: 'stop' };
    },
  };
  return { model, tools: [tool], bounds: { inner: { maxTurns: TURNS + 5, maxToolCalls: TURNS + 5 } } };
}

/**
 * Runs one kernel run to its end, consuming every event; checks it did the workload's work.
 * `tally.checkpoints` (when given) counts the `checkpoint_saved` events: the store's acknowledged writes.
 */
export async function runToEnd(kernel, label, tally = undefined) {
  const run = kernel.start(['sum']);
  let events = 0;
  for await (const event of run) {
    events += 1;
    if (tally !== undefined && event.type === 'checkpoint_saved') tally.checkpoints += 1;
  }
  const result = await run.result;
  if (events === 0) throw new Error(`${label}: no events consumed`);
  expectFinal(result.tasks[0]?.output, label);
}

/** `checkpoints()`: how many checkpoints the store has acknowledged so far (the in-flight figure counts them). */
export async function createDualloopSystem(env, store, label) {
  const { createKernel } = await loadDualloop();
  const kernel = createKernel({ ...(await benchKernelOptions(env)), store });
  const tally = { checkpoints: 0 };
  return {
    runOnce: () => runToEnd(kernel, label, tally),
    checkpoints: () => tally.checkpoints,
  };
}
