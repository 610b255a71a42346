/**
 * The module graph of the TypeScript sources, read with a real parser (oxc, through rolldown):
 * static imports and re-exports, type-only ones included, `import()` expressions and
 * `import('…')` types. Each edge says whether it exists at run time: a type-only import is erased
 * by the compiler; any other import runs the module it names (with `verbatimModuleSyntax`, even
 * `import { type A } from …` stays as an import).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSync } from 'rolldown/utils';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface ImportEdge {
  /** A project file (`src/kernel/options.ts`) or a package specifier (`zod`, `node:fs`). */
  readonly target: string;
  readonly kind: 'static' | 'type' | 'dynamic';
}

/** Whether the edge loads its target when the importing module runs. */
export const atRunTime = (edge: ImportEdge): boolean => edge.kind !== 'type';

export const isProjectFile = (target: string): boolean => target.endsWith('.ts') && !target.startsWith('node:');

interface AstNode {
  readonly type?: string;
  readonly [key: string]: unknown;
}

function literal(node: unknown): string | undefined {
  const value = (node as { type?: string; value?: unknown } | null | undefined)?.value;
  return (node as { type?: string } | null | undefined)?.type === 'Literal' && typeof value === 'string' ? value : undefined;
}

/** The imports a source file names, in source order. Throws when the file does not parse. */
export function importsOf(file: string, source: string): ImportEdge[] {
  const parsed = parseSync(file, source, { lang: 'ts' });
  if (parsed.errors.length > 0) throw new Error(`${file} does not parse: ${parsed.errors.map((error) => error.message).join('; ')}`);
  const found: { specifier: string; kind: ImportEdge['kind'] }[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const current = node as AstNode;
    switch (current.type) {
      case 'ImportDeclaration':
        found.push({ specifier: literal(current.source)!, kind: current.importKind === 'type' ? 'type' : 'static' });
        break;
      case 'ExportNamedDeclaration':
      case 'ExportAllDeclaration':
        if (current.source != null) found.push({ specifier: literal(current.source)!, kind: current.exportKind === 'type' ? 'type' : 'static' });
        break;
      case 'ImportExpression': {
        const specifier = literal(current.source);
        // A computed specifier cannot be followed: refuse it rather than miss an edge.
        if (specifier === undefined) throw new Error(`${file}: import() with a computed specifier`);
        found.push({ specifier, kind: 'dynamic' });
        break;
      }
      case 'TSImportType': {
        const specifier = literal(current.source) ?? literal((current.argument as AstNode | undefined)?.literal);
        if (specifier !== undefined) found.push({ specifier, kind: 'type' });
        break;
      }
      case 'TSExternalModuleReference': {
        const specifier = literal(current.expression);
        if (specifier !== undefined) found.push({ specifier, kind: 'static' });
        break;
      }
    }
    for (const [key, child] of Object.entries(current)) if (key !== 'parent' && typeof child === 'object') visit(child);
  };
  visit(parsed.program);
  return found.map(({ specifier, kind }) => ({ target: specifier.startsWith('.') ? projectPath(file, specifier) : specifier, kind }));
}

function projectPath(from: string, specifier: string): string {
  return relative(ROOT, resolve(ROOT, dirname(from), specifier)).replace(/\.js$/, '.ts');
}

export interface ModuleGraph {
  /** The imports of a project file, read once. */
  edgesOf(file: string): readonly ImportEdge[];
}

/** The graph of the files under ROOT; `overlay` replaces the text of some files (to test a rule). */
export function createModuleGraph(overlay: Readonly<Record<string, string>> = {}): ModuleGraph {
  const cache = new Map<string, ImportEdge[]>();
  return {
    edgesOf(file) {
      let edges = cache.get(file);
      if (edges === undefined) {
        edges = importsOf(file, overlay[file] ?? readFileSync(join(ROOT, file), 'utf8'));
        cache.set(file, edges);
      }
      return edges;
    },
  };
}

/** Every `.ts` file under a project directory (relative to ROOT). */
export function sourceFiles(directory: string): string[] {
  return readdirSync(join(ROOT, directory)).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** What a walk reached: each target with the chain of imports that led to it from a start file. */
export type Reached = ReadonlyMap<string, readonly string[]>;

/**
 * Walks the graph from `starts` along the edges `follow` accepts, into project files only (packages
 * are reached, not entered). Each target keeps the first (shortest) chain that reached it.
 */
export function walk(graph: ModuleGraph, starts: readonly string[], follow: (edge: ImportEdge) => boolean = () => true): Reached {
  const reached = new Map<string, readonly string[]>(starts.map((file) => [file, [file]]));
  const queue = [...starts];
  for (let index = 0; index < queue.length; index += 1) {
    const file = queue[index]!;
    for (const edge of graph.edgesOf(file)) {
      if (!follow(edge) || reached.has(edge.target)) continue;
      reached.set(edge.target, [...reached.get(file)!, edge.target]);
      if (isProjectFile(edge.target)) queue.push(edge.target);
    }
  }
  return reached;
}

/** `a.ts → b.ts → c.ts`: a chain, for a failure message. */
export const describeChain = (chain: readonly string[]): string => chain.join(' → ');
