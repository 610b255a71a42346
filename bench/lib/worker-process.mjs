/**
 * A bench worker process (lib/bench-worker.mjs) seen from the process that started it: `ready`
 * once it takes slices, `send(command)` writes a line to its stdin (`go`), `stats()` asks for its
 * counters, `stop(killAfterMs)` sends SIGTERM (it drains and exits 0) and SIGKILL when it has not
 * exited `killAfterMs` later; `onSlice` hears of each slice that ended.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('bench-worker.mjs', import.meta.url));

export function startWorkerProcess(spec, { onSlice } = {}) {
  const child = spawn(process.execPath, [script, JSON.stringify(spec)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const asked = [];
  let becameReady;
  const readyLine = new Promise((resolve) => (becameReady = resolve));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  void exited.then((code) => {
    for (const waiter of asked.splice(0)) waiter.reject(new Error(`worker ${spec.workerId} exited ${code}`));
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line === 'ready') becameReady();
    else if (line.startsWith('slice ')) onSlice?.(JSON.parse(line.slice('slice '.length)));
    else if (line.startsWith('stats ')) asked.shift()?.resolve(JSON.parse(line.slice('stats '.length)));
  });
  return {
    ready: Promise.race([readyLine, exited.then((code) => Promise.reject(new Error(`worker ${spec.workerId} exited ${code} before it was ready`)))]),
    exited,
    send(command) {
      child.stdin.write(`${command}\n`);
    },
    stats() {
      return new Promise((resolve, reject) => {
        asked.push({ resolve, reject });
        child.stdin.write('stats\n');
      });
    },
    async stop(killAfterMs) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
