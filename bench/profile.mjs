/**
 * Where a system's time goes: runs it in this process after a warm-up, under V8's sampling
 * profiler (node:inspector) for the measured runs only, and prints self time per turn by area
 * (XState, GC, each dualloop folder) and the heaviest functions.
 *
 *   node bench/profile.mjs [system=dualloop] [runs=1000]
 *   DUALLOOP_UNBUNDLED=1 node bench/profile.mjs …   # dualloop from dist/src: areas by folder, not by chunk
 *   INFLIGHT=50 node bench/profile.mjs …           # each "run" is that many runs started together
 *   BENCH_DATABASE_URL=postgres://… node bench/profile.mjs dualloop-postgres 20   # the Postgres store
 */
import { sampleRuns } from './lib/sample-runs.mjs';
import { immediatePacer, TURNS } from './lib/workload.mjs';

const [name = 'dualloop', runsText = '1000'] = process.argv.slice(2);
const runs = Number(runsText);
const env = { pacer: immediatePacer, turns: TURNS };
const inFlight = Number(process.env.INFLIGHT ?? 1);
const one = await (await import(`./systems/${name}.mjs`)).createSystem(env);
const system = inFlight === 1 ? one : { runOnce: () => Promise.all(Array.from({ length: inFlight }, () => one.runOnce())) };
for (let index = 0; index < Number(process.env.WARMUP ?? 300); index += 1) await system.runOnce();

const profile = await sampleRuns(system, runs, 100);

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfUs = new Map();
profile.samples.forEach((id, index) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
const area = ({ url, functionName }) => {
  if (url === '') return functionName;
  if (url.includes('node_modules/xstate')) return 'xstate';
  if (url.includes('node_modules/')) return url.replace(/.*node_modules\/((@[^/]+\/)?[^/]+).*/, '$1');
  if (url.startsWith('node:')) return 'node internals';
  const own = /dist\/(src\/[^/]+|machines)\//.exec(url);
  return own === null ? url.replace(/.*\//, '') : own[1];
};
const areas = new Map();
const functions = new Map();
let total = 0;
for (const [id, us] of selfUs) {
  const frame = byId.get(id).callFrame;
  total += us;
  areas.set(area(frame), (areas.get(area(frame)) ?? 0) + us);
  if (frame.url.includes('/dist/')) {
    const key = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/.*\/dist\//, '')}:${frame.lineNumber + 1}`;
    functions.set(key, (functions.get(key) ?? 0) + us);
  }
}
const turns = runs * TURNS * inFlight;
const line = (label, us) => `${(us / turns).toFixed(1).padStart(8)} µs/turn ${((100 * us) / total).toFixed(1).padStart(5)} %  ${label}`;
process.stdout.write(`${name}: ${(total / turns).toFixed(0)} µs/turn sampled over ${runs} runs\n\nby area (self time)\n`);
for (const [label, us] of [...areas].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 16))) process.stdout.write(`${line(label, us)}\n`);
process.stdout.write('\nheaviest functions (self time)\n');
for (const [label, us] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 16))) process.stdout.write(`${line(label, us)}\n`);
