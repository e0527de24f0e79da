/**
 * Public stand-ins for the optional packages' types. The package's declarations must type-check in
 * a project that has neither `pg` nor `better-sqlite3` (nor their @types) installed, so options that
 * accept an object of theirs describe it structurally; pass the real object.
 */

/** A `pg` Pool (`new pg.Pool(...)`); the guard uses query, connect and end. */
export interface PgPool {
  query(...args: never[]): Promise<unknown>;
  connect(): Promise<unknown>;
  end(): Promise<void>;
}

/** A `better-sqlite3` Database (`new Database(path)`). */
export interface SqliteDatabase {
  readonly open: boolean;
  prepare(source: string): unknown;
  exec(source: string): unknown;
  close(): unknown;
}
