/** What the results were measured on and with: machine, Node, date, and the version of every system. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';

function versionOf(packageJson) {
  try {
    return JSON.parse(readFileSync(packageJson, 'utf8')).version;
  } catch {
    return undefined;
  }
}

function git(root, args) {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

export function machineInfo() {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model ?? 'unknown',
    cores: os.availableParallelism?.() ?? cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    node: process.version,
    v8: process.versions.v8,
  };
}

/** `package` → version, read from the install each system is loaded from. */
export function packageVersions(benchDir, dualloopRoot) {
  const bench = (name) => versionOf(new URL(`node_modules/${name}/package.json`, benchDir));
  const commit = git(dualloopRoot, ['rev-parse', '--short', 'HEAD']);
  const dirty = git(dualloopRoot, ['status', '--porcelain', '--', 'src', 'machines']);
  return {
    dualloop: `${versionOf(new URL('package.json', dualloopRoot))}${commit === undefined ? '' : ` (${commit}${dirty ? ', uncommitted changes in src/ or machines/' : ''})`}`,
    xstate: versionOf(new URL('node_modules/xstate/package.json', dualloopRoot)),
    ai: bench('ai'),
    '@openai/agents-core': bench('@openai/agents-core'),
    '@langchain/langgraph': bench('@langchain/langgraph'),
    '@langchain/core': bench('@langchain/core'),
    '@mariozechner/pi-agent-core': bench('@mariozechner/pi-agent-core'),
    '@mariozechner/pi-ai': bench('@mariozechner/pi-ai'),
    '@langchain/langgraph-checkpoint-sqlite': versionOf(new URL('peers/langgraph-sqlite/node_modules/@langchain/langgraph-checkpoint-sqlite/package.json', benchDir)),
    'better-sqlite3': versionOf(new URL('peers/langgraph-sqlite/node_modules/better-sqlite3/package.json', benchDir)),
    '@langchain/langgraph-checkpoint-postgres': versionOf(new URL('peers/langgraph-postgres/node_modules/@langchain/langgraph-checkpoint-postgres/package.json', benchDir)),
    pg: versionOf(new URL('node_modules/pg/package.json', dualloopRoot)),
    'pg-boss': versionOf(new URL('node_modules/pg-boss/package.json', dualloopRoot)),
    zod: bench('zod'),
    typebox: bench('typebox'),
  };
}
