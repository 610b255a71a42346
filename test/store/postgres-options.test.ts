import { describe, expect, it } from 'vitest';
import { ConfigError, postgresStore } from 'dualloop';

/* postgresStore's arguments are checked before any connection: no server is needed here. */

describe('postgresStore: a missing connection string', () => {
  it('says it is missing and names DATABASE_URL, where the docs example reads it from', () => {
    const unset = () => postgresStore({ connectionString: undefined as unknown as string });
    expect(unset).toThrow(ConfigError);
    expect(unset).toThrow('Invalid postgresStore options:\n  - connectionString: missing (got undefined): give a postgres:// URL; read from the environment (process.env.DATABASE_URL), check that DATABASE_URL is set');
    expect(() => postgresStore({ connectionString: '  ' })).toThrow(/connectionString: missing \(got an empty string\): .*DATABASE_URL is set/);
  });

  it('still asks for exactly one of connectionString or pool when neither (or both) is given', () => {
    const exactlyOne = 'connection: give exactly one of connectionString (a postgres:// URL) or pool (a pg.Pool)';
    expect(() => postgresStore({} as never)).toThrow(exactlyOne);
    const pool = { connect: async () => undefined, query: () => undefined, end: async () => undefined };
    expect(() => postgresStore({ connectionString: 'postgres://localhost/x', pool } as never)).toThrow(exactlyOne);
  });
});
