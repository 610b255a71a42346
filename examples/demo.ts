/**
 * The demo, `npm run demo`: runs examples/expense-report.yaml with the `dualloop` command on the
 * embedded defaults (the scripted model of its cassette, the SQLite store at .dualloop/runs.db),
 * then prints the run's audit. On a terminal the run shows its live view; piped, it prints NDJSON.
 * The same two commands work by hand:
 *
 *   npx dualloop run examples/expense-report.yaml
 *   npx dualloop audit <run id>
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const runId = `demo-${new Date().toISOString().replace(/[-:.Z]/g, '')}`;

const dualloop = (...args: string[]): number => spawnSync(process.execPath, [cli, ...args], { cwd: root, stdio: 'inherit' }).status ?? 1;

const code = dualloop('run', 'examples/expense-report.yaml', '--run-id', runId);
console.log(`\n$ dualloop audit ${runId}`);
dualloop('audit', runId);
process.exitCode = code;
