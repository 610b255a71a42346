// vitest globalSetup: one Postgres server for the whole run, its URL provided to every test file
// (`inject('postgresUrl')`, see test/support/postgres.ts), stopped when the run ends.
import type { TestProject } from 'vitest/node';
import { startTestPostgres } from './postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startTestPostgres();
  project.provide('postgresUrl', server.url);
  return () => server.stop();
}
