// A throwaway database on the test Postgres server for one suite: created with a random name
// from the server's URL, dropped (with any connections left) when the suite ends.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export function withDatabase(serverUrl: () => string) {
  const name = `errata_test_${randomBytes(4).toString('hex')}`;
  let base: URL | undefined;
  async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    base ??= new URL(serverUrl());
    const client = new pg.Client({ connectionString: new URL('/postgres', base).toString() });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  }
  return {
    name,
    /** Creates the database; resolves to its URL. */
    async create(): Promise<string> {
      await admin((c) => c.query(`CREATE DATABASE ${name}`));
      const url = new URL(base!.toString());
      url.pathname = `/${name}`;
      return url.toString();
    },
    /** The database's URL (after create). */
    async url(): Promise<string> {
      const url = new URL(base!.toString());
      url.pathname = `/${name}`;
      return url.toString();
    },
    async drop(): Promise<void> {
      await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
