// Bundles the package's library entries (the root, dualloop/testing, dualloop/viewer and
// dualloop/inspect) from tsc's output in dist/src into dist/bundle (ADR/0381), so that `import('dualloop')`
// reads two files instead of ~170: the root entry and one `core` chunk holding every module the
// root imports statically. The other entries import the same core (one instance of every class)
// and bring their own modules; a dynamic import() (the openai SDK's caller, the Postgres store,
// the ecosystem adapters) stays a chunk of its own, loaded on first use. Dependencies stay
// external: npm installs them once and users share zod with dualloop. The CLI stays unbundled in
// dist/src/cli: it loads each command on use, and `dualloop --help` would otherwise load the core.
import { build as esbuild } from 'esbuild';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const from = (path) => fileURLToPath(new URL(`../${path}`, import.meta.url));
const out = from('dist/bundle');
const entries = {
  index: from('dist/src/index.js'),
  testing: from('dist/src/testing/index.js'),
  viewer: from('dist/src/viewer/index.js'),
  inspect: from('dist/src/inspect/index.js'),
};
const external = (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0');

/** The modules the root entry imports statically (what a bare `import('dualloop')` evaluates). */
async function rootGraph() {
  const { metafile } = await esbuild({ entryPoints: [entries.index], bundle: true, splitting: true, format: 'esm', platform: 'node', packages: 'external', write: false, outdir: out, metafile: true, logLevel: 'warning' });
  const root = Object.values(metafile.outputs).find((output) => output.entryPoint !== undefined);
  return new Set(Object.keys(root.inputs).map((input) => resolve(from(''), input)));
}

const core = await rootGraph();
rmSync(out, { recursive: true, force: true });
await build({
  input: entries,
  external,
  platform: 'node',
  logLevel: 'warn',
  // The Postgres store is imported statically by the root and dynamically by the CLI: expected.
  onLog: (level, log, handler) => (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT' ? undefined : handler(level, log)),
  output: {
    dir: out,
    format: 'esm',
    sourcemap: true,
    chunkFileNames: 'chunks/[name]-[hash].js',
    codeSplitting: { groups: [{ name: 'core', test: (id) => core.has(id) }] },
  },
});
console.log(`entries bundled into ${out} (core: ${core.size} modules)`);
