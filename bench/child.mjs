/**
 * One system, one protocol, in its own process (started by run.mjs with --expose-gc):
 *   node --expose-gc bench/child.mjs '<json spec>'
 * Prints one line `RESULT <json>` on stdout.
 */
import { measureCapacity, measureConcurrent, measureInFlight, measureSequential, measureSetup } from './lib/measure.mjs';
import { immediatePacer } from './lib/workload.mjs';

const spec = JSON.parse(process.argv[2] ?? '{}');
const module = await import(new URL(`./systems/${spec.system}.mjs`, import.meta.url).href);
const env = { pacer: immediatePacer };
const system = await module.createSystem(env);
await system.runOnce();

const protocols = { sequential: measureSequential, concurrent: measureConcurrent, setup: measureSetup, capacity: measureCapacity, inflight: measureInFlight };
const measured = await protocols[spec.protocol]?.(system, env, spec);
if (measured === undefined) throw new Error(`unknown protocol ${spec.protocol}`);
process.stdout.write(`RESULT ${JSON.stringify({ system: spec.system, protocol: spec.protocol, ...measured })}\n`);
// Some peers keep handles open (timers, pools); the measurement is done.
process.exit(0);
