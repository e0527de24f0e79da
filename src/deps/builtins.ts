/**
 * Node built-in modules that only some features use, loaded on their first call so that importing
 * the package does not load them: `@langchain/langgraph` does not load these three, and `node:net`
 * alone (with what it loads) costs a process about 1 ms of CPU. `process.getBuiltinModule` loads a
 * built-in synchronously, without `require`, in ES modules, CommonJS and bundles alike.
 */
import type * as Net from "node:net";
import type * as Os from "node:os";
import type * as Readline from "node:readline";
import type * as Timers from "node:timers/promises";

let net: typeof Net | undefined;
let os: typeof Os | undefined;
let readline: typeof Readline | undefined;
let timers: typeof Timers | undefined;

/** `net.isIPv6`. */
export function isIPv6(text: string): boolean {
  return (net ??= process.getBuiltinModule("node:net")).isIPv6(text);
}

/** `net.isIPv4`. */
export function isIPv4(text: string): boolean {
  return (net ??= process.getBuiltinModule("node:net")).isIPv4(text);
}

/** `os.hostname()` and the addresses of `os.networkInterfaces()` (none where a sandbox refuses to list them). */
export function thisHost(): { name: string; addresses: string[] } {
  const host = (os ??= process.getBuiltinModule("node:os"));
  let addresses: string[] = [];
  try {
    addresses = Object.values(host.networkInterfaces()).flatMap((entries) => (entries ?? []).map((entry) => entry.address));
  } catch {
    // uv_interface_addresses fails in some sandboxes: the host name and the hosts file still say where this machine is
  }
  let name = "";
  try {
    name = host.hostname();
  } catch {
    // no host name to read
  }
  return { name, addresses };
}

/** `readline.createInterface`. */
export function createInterface(options: Readline.ReadLineOptions): Readline.Interface {
  return (readline ??= process.getBuiltinModule("node:readline")).createInterface(options);
}

/** `timers/promises.setTimeout`: resolves with `value` after `delay` ms (rejects when `options.signal` aborts). */
export function sleep<T = void>(delay?: number, value?: T, options?: Parameters<typeof Timers.setTimeout>[2]): Promise<T> {
  return (timers ??= process.getBuiltinModule("node:timers/promises")).setTimeout(delay, value, options);
}

