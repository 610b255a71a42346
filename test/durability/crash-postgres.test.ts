import { postgresUrl } from '../support/postgres.js';
import { dropSchemas, postgresCrashStore } from './crash-postgres-store.js';
import { describeCrashSuite } from './crash-suite.js';

describeCrashSuite(postgresCrashStore(postgresUrl()), (workDirs) => dropSchemas(postgresUrl(), workDirs));
