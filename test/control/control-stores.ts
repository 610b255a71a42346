// The stores the control tests run against: two handles on the same runs (two connections), as
// two processes would have. The run executes through `runner`; commands go through `sender`.
import { join } from 'node:path';
import { postgresStore, sqliteStore, type CheckpointStore } from 'dualloop';
import { postgresUrl, useSchemas } from '../support/postgres.js';
import { useTempDir } from '../store/temp-dir.js';

export interface StorePair {
  readonly runner: CheckpointStore;
  readonly sender: CheckpointStore;
  /** What `--store` names for the CLI. */
  readonly target: string;
  close(): Promise<void>;
}

export function storeKinds(): { readonly name: string; open(): StorePair }[] {
  const directory = useTempDir('dualloop-control-');
  const schema = useSchemas('control');
  return [
    {
      name: 'sqliteStore',
      open() {
        const path = join(directory(), 'runs.db');
        const runner = sqliteStore({ path });
        const sender = sqliteStore({ path });
        return { runner, sender, target: path, close: async () => (runner.close(), sender.close()) };
      },
    },
    {
      name: 'postgresStore',
      open() {
        const name = schema();
        const runner = postgresStore({ connectionString: postgresUrl() }, { schema: name, maxConnections: 3 });
        const sender = postgresStore({ connectionString: postgresUrl() }, { schema: name, maxConnections: 2 });
        const url = new URL(postgresUrl());
        url.searchParams.set('schema', name);
        return { runner, sender, target: url.toString(), close: async () => void (await Promise.all([runner.close(), sender.close()])) };
      },
    },
  ];
}
