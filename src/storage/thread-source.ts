import type Database from "better-sqlite3";
import type pg from "pg";

/** Direct SQL access to a checkpointer's tables, so thread listing need not load every checkpoint. */
export type ThreadSource =
  | { kind: "sqlite"; db: Database.Database }
  | { kind: "postgres"; pool: pg.Pool; schema: string };

const sources = new WeakMap<object, ThreadSource>();

export function registerThreadSource(checkpointer: object, source: ThreadSource): void {
  sources.set(checkpointer, source);
}

export function threadSourceOf(checkpointer: object): ThreadSource | undefined {
  return sources.get(checkpointer);
}
