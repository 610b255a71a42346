import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One fenced code block of a Markdown file. */
export interface CodeBlock {
  /** The file, relative to the repository root (`README.md`, `docs/durability.md`). */
  readonly file: string;
  /** The line of the opening fence, 1-based. */
  readonly line: number;
  readonly language: string;
  /** Words after the language on the fence (```ts no-run → ['no-run']). */
  readonly annotations: readonly string[];
  readonly code: string;
}

const TYPESCRIPT = new Set(['ts', 'typescript']);

/** The fenced blocks of `file` (relative to `root`), in order. */
export function codeBlocks(root: string, file: string): CodeBlock[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)\s*(.*)$/.exec(lines[index]!);
    if (open === null) continue;
    const [, indent = '', fence = '', language = '', rest = ''] = open;
    const body: string[] = [];
    let end = index + 1;
    while (end < lines.length && !lines[end]!.trimStart().startsWith(fence)) body.push(lines[end++]!.slice(indent.length));
    blocks.push({ file, line: index + 1, language, annotations: rest.split(/\s+/).filter(Boolean), code: `${body.join('\n')}\n` });
    index = end;
  }
  return blocks;
}

/** Every TypeScript block of README.md and docs/*.md. */
export function typescriptBlocks(root: string): CodeBlock[] {
  const files = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)];
  return files.flatMap((file) => codeBlocks(root, file)).filter((block) => TYPESCRIPT.has(block.language));
}
