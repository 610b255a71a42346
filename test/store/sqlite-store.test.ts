import { join } from 'node:path';
import { sqliteStore } from 'dualloop';
import { describeCheckpointStore } from './conformance.js';
import { useTempDir } from './temp-dir.js';

const directory = useTempDir();
describeCheckpointStore('sqliteStore (file)', () => sqliteStore({ path: join(directory(), 'runs.db') }));
describeCheckpointStore('sqliteStore (:memory:)', () => sqliteStore({ path: ':memory:' }));
