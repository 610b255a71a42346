// Quick kernel overhead probe (the full comparison lives in bench/run.mjs).
import { createKernel, defineTool, memoryStore } from '../dist/src/index.js';
import { z } from 'zod';
const TURNS = Number(process.argv[3] ?? 10);
const add = defineTool({ name: 'add', description: 'adds', parameters: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => a + b });
const model = {
  provider: 'bench', modelId: 'bench',
  async call({ callIndex }) {
    return callIndex % TURNS < TURNS - 1
      ? { type: 'response', text: '', toolCalls: [{ id: `c${callIndex}`, name: 'add', args: { a: callIndex, b: 1 } }], usage: { inputTokens: 10, outputTokens: 5 }, costUsd: 0, finishReason: 'tool_calls' }
      : { type: 'response', text: 'done', toolCalls: [], usage: { inputTokens: 10, outputTokens: 5 }, costUsd: 0, finishReason: 'stop' };
  },
};
const kernel = createKernel({ model, tools: [add], store: memoryStore(), bounds: { inner: { maxTurns: TURNS + 5, maxToolCalls: TURNS + 5 } }, loopDetection: false });
async function once() { const run = kernel.start(['sum']); for await (const _ of run) {} return run.result; }
const RUNS = Number(process.argv[2] ?? 2000);
for (let i = 0; i < 300; i++) await once();
const samples = [];
for (let r = 0; r < 3; r++) { const t = performance.now(); for (let i = 0; i < RUNS; i++) await once(); samples.push((performance.now() - t) * 1000 / (RUNS * TURNS)); }
console.log('us/turn', samples.map((x) => x.toFixed(1)).join(' '));
