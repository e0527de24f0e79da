import { randomUUID } from "node:crypto";
import { hostname } from "node:os";

/** A worker identity unique to this process and call: host, pid and a random suffix. */
export function defaultOwner(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}
