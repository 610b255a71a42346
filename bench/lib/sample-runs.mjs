/**
 * V8's sampling CPU profile (node:inspector) of `runs` runs of a system, after its warm-up runs
 * elsewhere: only the measured runs are in the profile. `intervalUs`: the sampling interval.
 */
import { Session } from 'node:inspector/promises';

export async function sampleRuns(system, runs, intervalUs) {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: intervalUs });
  await session.post('Profiler.start');
  for (let index = 0; index < runs; index += 1) await system.runOnce();
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  return profile;
}
