import { sqliteCrashStore } from './crash-harness.js';
import { describeCrashSuite } from './crash-suite.js';

describeCrashSuite(sqliteCrashStore);
