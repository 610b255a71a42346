import { postgresStore } from 'dualloop';
import { postgresUrl, useSchemas } from '../support/postgres.js';
import { describeCheckpointStore } from './conformance.js';

const schema = useSchemas('conformance');
describeCheckpointStore('postgresStore', () => postgresStore({ connectionString: postgresUrl() }, { schema: schema(), maxConnections: 4 }));
