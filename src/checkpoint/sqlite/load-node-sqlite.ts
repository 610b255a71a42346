import { createRequire } from 'node:module';
import type * as NodeSqlite from 'node:sqlite';
import { nodeVersionProblem } from '../../node-version.js';
import { StoreError } from '../../errors.js';

/**
 * `node:sqlite`, loaded when a SQLite store is first opened rather than when the library is
 * imported, so `import('dualloop')` works on a Node.js without it and `sqliteStore` explains which
 * Node it needs.
 */
export function loadNodeSqlite(path: string): typeof NodeSqlite {
  const problem = nodeVersionProblem('sqliteStore');
  try {
    return createRequire(import.meta.url)('node:sqlite') as typeof NodeSqlite;
  } catch (error) {
    const message = `${problem ?? `sqliteStore cannot load node:sqlite on Node.js ${process.versions.node}`}: use memoryStore() or upgrade Node.js`;
    throw new StoreError({ code: 'store_failed', path, message, cause: error });
  }
}
