/**
 * `importMs`: a cold `import('dualloop')` in a fresh process — the time of the
 * `import()` of the built root entry (the file package.json's exports name for `.`), measured inside a new Node process (so Node's own start,
 * ~30 ms, is not counted), median of `processes` processes run one after another.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { summarize } from './stats.mjs';

/** The root entry of the checkout's package.json exports (dist/bundle/index.js since ADR/0381). */
export function rootEntry(dualloopRoot) {
  const { exports } = JSON.parse(readFileSync(new URL('package.json', dualloopRoot), 'utf8'));
  return new URL(exports['.'].import, dualloopRoot);
}

export function measureImport(dualloopRoot, processes) {
  const entry = rootEntry(dualloopRoot).href;
  const script = `const started = performance.now(); await import(${JSON.stringify(entry)}); process.stdout.write(String(performance.now() - started));`;
  const samples = [];
  for (let index = 0; index < processes; index += 1) {
    const child = spawnSync(process.execPath, ['--input-type=module', '--eval', script], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`import('dualloop') failed: ${child.stderr.trim().split('\n').slice(-3).join(' | ')}`);
    samples.push(Number(child.stdout));
  }
  return summarize(samples);
}
