// Writes docs/diagrams.md from the machine definitions (run `npm run diagrams`; it compiles first).
// test/viewer/diagrams.test.ts fails when the committed file no longer matches the machines.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { kernelMachineGraphs } from '../dist/src/viewer/machine-graph.js';
import { diagramsMarkdown } from '../dist/src/viewer/mermaid.js';

const target = fileURLToPath(new URL('../docs/diagrams.md', import.meta.url));
writeFileSync(target, `${diagramsMarkdown(kernelMachineGraphs())}\n`);
console.log(`wrote ${target}`);
