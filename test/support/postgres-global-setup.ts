// vitest globalSetup: one Postgres server for the whole run, its URL provided to every test file
// (`inject('postgresUrl')`, see test/support/postgres.ts), stopped when the run ends. When no
// server can start, the one line that says why (and how to use DATABASE_URL) is printed once here
// and provided instead: every Postgres test fails with it, and the tests that need no Postgres
// still run (as the browser tests do without a browser, test/support/chromium-global-setup.ts).
import type { TestProject } from 'vitest/node';
import { startTestPostgres } from './postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl?: string;
    postgresUnavailable?: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  try {
    const server = await startTestPostgres();
    project.provide('postgresUrl', server.url);
    return () => server.stop();
  } catch (error) {
    const line = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${line}\n`);
    project.provide('postgresUnavailable', line);
    return async () => undefined;
  }
}
