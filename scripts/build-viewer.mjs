// Bundles the viewer's page (src/viewer/web/) into dist/viewer/ with esbuild: one script, one
// stylesheet and index.html, so the package serves it offline (docs/viewer.md, ADR/0083).
import { copyFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const from = (path) => fileURLToPath(new URL(`../${path}`, import.meta.url));
const out = from('dist/viewer');
mkdirSync(out, { recursive: true });

await build({
  entryPoints: [from('src/viewer/web/main.tsx')],
  outfile: `${out}/viewer.js`,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
  legalComments: 'eof',
  logLevel: 'warning',
  tsconfig: from('src/viewer/web/tsconfig.json'),
});
copyFileSync(from('src/viewer/web/index.html'), `${out}/index.html`);
copyFileSync(from('src/viewer/web/viewer.css'), `${out}/viewer.css`);
console.log(`viewer bundled into ${out}`);
