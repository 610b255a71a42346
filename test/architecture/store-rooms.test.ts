/**
 * The stores' rooms: the SQLite store lives in src/checkpoint/sqlite/, the Postgres store in
 * src/checkpoint/postgres/, and what both use beside them in src/checkpoint/. Neither store
 * imports the other, and no file of the stores or the contracts reaches itself through its imports.
 * Each rule also runs on sources with one offending import added, so it cannot pass vacuously.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { atRunTime, createModuleGraph, describeChain, isProjectFile, ROOT, sourceFiles, walk, type ModuleGraph } from '../support/import-graph.js';

const ROOMS = ['src/checkpoint/sqlite/', 'src/checkpoint/postgres/'] as const;

/** Imports from one store's room into the other's. */
function crossings(graph: ModuleGraph): string[] {
  return sourceFiles('src/checkpoint').flatMap((file) => {
    const room = ROOMS.find((prefix) => file.startsWith(prefix));
    if (room === undefined) return [];
    return graph.edgesOf(file).filter((edge) => ROOMS.some((other) => other !== room && edge.target.startsWith(other))).map((edge) => `${file} → ${edge.target}`);
  });
}

/**
 * Each file of `directories` that its own imports lead back to at run time, with the chain (a
 * cycle of type-only imports loads nothing and is not one).
 */
function cycles(graph: ModuleGraph, directories: readonly string[]): string[] {
  const inScope = (target: string) => isProjectFile(target) && directories.some((directory) => target.startsWith(`${directory}/`));
  return directories.flatMap(sourceFiles).flatMap((file) => {
    const starts = graph.edgesOf(file).filter((edge) => atRunTime(edge) && inScope(edge.target)).map((edge) => edge.target);
    const reached = walk(graph, starts, (edge) => atRunTime(edge) && inScope(edge.target));
    const back = reached.get(file);
    return back === undefined ? [] : [describeChain([file, ...back])];
  });
}

const withLine = (file: string, line: string) => createModuleGraph({ [file]: `${line}\n${readFileSync(join(ROOT, file), 'utf8')}` });

describe('the stores’ rooms', () => {
  const graph = createModuleGraph();

  it('each store has its folder, and neither imports the other', () => {
    expect(sourceFiles('src/checkpoint/sqlite')).toContain('src/checkpoint/sqlite/sqlite-store.ts');
    expect(sourceFiles('src/checkpoint/postgres')).toContain('src/checkpoint/postgres/postgres-store.ts');
    expect(sourceFiles('src/checkpoint').filter((file) => /\/(sqlite|postgres)-[^/]+\.ts$/.test(file) && !ROOMS.some((room) => file.startsWith(room)))).toEqual([]);
    expect(crossings(graph)).toEqual([]);
    expect(crossings(withLine('src/checkpoint/postgres/postgres-writes.ts', "import { x } from '../sqlite/sqlite-write-behind.js';"))).toEqual([
      'src/checkpoint/postgres/postgres-writes.ts → src/checkpoint/sqlite/sqlite-write-behind.ts',
    ]);
  });

  it('no file of the stores or the contracts imports itself back at run time', () => {
    expect(cycles(graph, ['src/checkpoint', 'src/contracts'])).toEqual([]);
    const broken = withLine('src/checkpoint/postgres/postgres-clock.ts', "import { PostgresRunWrites } from './postgres-writes.js';");
    expect(cycles(broken, ['src/checkpoint', 'src/contracts'])).toContain('src/checkpoint/postgres/postgres-clock.ts → src/checkpoint/postgres/postgres-writes.ts → src/checkpoint/postgres/postgres-clock.ts');
  });
});
