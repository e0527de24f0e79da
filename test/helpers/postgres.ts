import pg from "pg";
import { afterAll } from "vitest";

/**
 * PostgreSQL for tests: `POSTGRES_URL` names the server. Without it, or when it is unreachable,
 * the tests skip, unless `REQUIRE_POSTGRES=1` (set by .ci/run), where they fail instead.
 */
export const POSTGRES_URL = process.env.POSTGRES_URL;
export const REQUIRE_POSTGRES = process.env.REQUIRE_POSTGRES === "1";

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Resolves to the URL to use, or undefined to skip; throws under REQUIRE_POSTGRES when unusable. */
export async function postgresForTests(): Promise<string | undefined> {
  if (!POSTGRES_URL) {
    if (REQUIRE_POSTGRES) throw new Error("REQUIRE_POSTGRES=1 but POSTGRES_URL is not set");
    return undefined;
  }
  if (await reachable(POSTGRES_URL)) return POSTGRES_URL;
  if (REQUIRE_POSTGRES) throw new Error(`REQUIRE_POSTGRES=1 but PostgreSQL at ${POSTGRES_URL} is unreachable`);
  return undefined;
}

/** Whether to register PostgreSQL suites at all (for `describe.runIf`). */
export const postgresConfigured = Boolean(POSTGRES_URL) || REQUIRE_POSTGRES;

/** A unique schema-safe name for tables created by one test file. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
}

/** Drops `schema` and all it holds, if it exists, on the server at `url`. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}

/** Drops table `table` (of the search path), if it exists, on the server at `url`. */
export async function dropTable(url: string, table: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP TABLE IF EXISTS "${table}"`);
  await client.end();
}

/** A unique schema name for the calling suite, dropped after all its tests (when PostgreSQL is reachable). */
export function schemaDroppedAfterAll(prefix: string): string {
  const schema = uniqueName(prefix);
  afterAll(async () => {
    const url = await postgresForTests();
    if (url) await dropSchema(url, schema);
  });
  return schema;
}
