/**
 * Loopback listeners for the real-program network oracles (test/net-program-oracle.test.ts,
 * test/net-fetchers-oracle.test.ts): sets of HTTP listeners on 127.0.0.1, 127.0.0.2 and ::1 (one
 * free port shared by the three), each set used by one command at a time, recording which loopback
 * address was connected to. A command runs in bash in a directory of its own under a HOME of its own
 * (no proxy in the environment; the caller writes the programs' configuration files there), with
 * stdin /dev/null and a time limit. No other network is reached: names that are not loopback do not
 * resolve here.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "vitest";
import type { PermissionPolicy } from "../../src/policy/index.js";

// ---- the spellings (see test/net-program-oracle.test.ts for their sources) ----

/** Spellings of a loopback host (127.0.0.1 unless said otherwise), from public SSRF lists. */
export const LOOPBACK_HOSTS: readonly string[] = [
  "127.0.0.1",
  "127.1",
  "127.0.1",
  "0x7f.1",
  "0x7f.0.0.1",
  "0x7f000001",
  "0177.0.0.1",
  "0177.1",
  "017700000001",
  "2130706433",
  "127.000.000.001",
  "0.0.0.0",
  "0",
  "localhost",
  "LOCALHOST",
  "localhost.",
  "LocalHost.",
  "127.0.0.1.",
  "foo.localhost",
  "[::1]",
  "[0:0:0:0:0:0:0:1]",
  "[0000::1]",
  "[::ffff:127.0.0.1]",
  "[::ffff:7f00:1]",
  "[0:0:0:0:0:ffff:127.0.0.1]",
  "[::1%25lo]",
  "[::1%lo]",
  "[::]",
  "%31%32%37.0.0.1",
  "%6c%6f%63%61%6c%68%6f%73%74",
  "\u2460\u2461\u2466.\u24ea.\u24ea.\u2460",
  "\uff11\uff12\uff17.\uff10.\uff10.\uff11",
  "127\u30020\u30020\u30021",
  "127\uff0e0\uff0e0\uff0e1",
  "\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54",
  "\u24db\u24de\u24d2\u24d0\u24db\u24d7\u24de\u24e2\u24e3",
  "127.0.0.2",
  "127.2",
  "0x7f.2",
];

/** URL shapes around a host (`H`) and the listeners' port (`P`). */
export const SHAPES: readonly string[] = [
  "http://H:P/",
  "H:P",
  "H:P/x",
  "HtTp://H:P/x",
  "http://api.example.com@H:P/",
  "https://api.example.com:443@H:P/",
  "http://H:P#@api.example.com/",
  "http://H:P?@api.example.com/",
  "http://H:P\\@api.example.com/",
  "http://api.example.com\\@H:P/",
  "//H:P/",
  "http:/H:P/",
  "http:H:P/",
  "http:\\\\H:P\\",
  "http://H\t:P/",
];


/** A command line for an oracle, `P` standing for the listeners' port. */
export interface CommandCase {
  readonly command: string;
  /** Files the command reads, written into its directory first. */
  readonly files?: Readonly<Record<string, string>>;
  readonly source: string;
}

/** The program runs here: `probe` (`--version`) exits 0, or, with `anyStatus`, exits at all (lwp-request's `-v` exits 255). */
export function installed(program: string, probe: readonly string[] = ["--version"], anyStatus = false): boolean {
  const result = spawnSync(program, [...probe], { stdio: "ignore", timeout: 10_000 });
  return result.error === undefined && (result.status === 0 || (anyStatus && result.status !== null));
}

/** Single quotes for bash. */
export const quote = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;

/** The text with each `:P` port placeholder replaced by the port. */
export const withPort = (text: string, port: number) => text.replace(/(?<=:)P\b/g, String(port));

const LISTEN_ON = ["127.0.0.1", "127.0.0.2", "::1"] as const;

/** Listener sets, one per command run at a time: a port each, shared by its three addresses, and the addresses it was connected to. */
interface Slot {
  port: number;
  readonly hits: string[];
  readonly servers: Server[];
}

async function openSlot(): Promise<Slot> {
  const slot: Slot = { port: 0, hits: [], servers: [] };
  for (const address of LISTEN_ON) {
    const server = createServer((_request, response) => response.end(`gg-${address}`));
    server.on("connection", () => slot.hits.push(address));
    server.on("connect", (_request, socket) => socket.end("HTTP/1.1 502 no\r\n\r\n"));
    const ok = await new Promise<boolean>((resolve) => {
      server.once("error", () => resolve(false));
      server.listen(slot.port, address, () => resolve(true));
    });
    if (!ok) {
      if (address === "::1") continue; // no IPv6 loopback here
      throw new Error(`cannot listen on ${address}:${slot.port}`);
    }
    if (slot.port === 0) slot.port = (server.address() as { port: number }).port;
    slot.servers.push(server);
  }
  return slot;
}

/** Loopback listener sets and a HOME for the commands; `close` ends them. */
export interface Listeners {
  /** Runs `work` with a listener set no other run uses, its hits cleared first; resolves to what `work` returned. */
  withSlot<T>(work: (slot: { readonly port: number; readonly hits: readonly string[] }) => Promise<T>): Promise<T>;
  /** Runs a command line in bash in a directory of its own: the loopback addresses it connected to, and the command with the port filled in. */
  run(c: CommandCase, timeoutMs?: number): Promise<{ command: string; reached: string[] }>;
  close(): void;
}

/**
 * Opens `count` listener sets; `home` holds files written into the commands' HOME (configuration
 * files with short time-outs: `.curlrc`, `.wgetrc`, ...).
 */
export async function openListeners(count: number, home: Readonly<Record<string, string>>): Promise<Listeners> {
  const homeDir = mkdtempSync(path.join(tmpdir(), "gg-net-oracle-"));
  for (const [name, text] of Object.entries(home)) {
    const file = path.join(homeDir, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  const slots: Slot[] = [];
  for (let i = 0; i < count; i++) slots.push(await openSlot());
  const free: Slot[] = [...slots];
  const waiting: ((slot: Slot) => void)[] = [];
  const withSlot = async <T>(work: (slot: Slot) => Promise<T>): Promise<T> => {
    const slot = free.pop() ?? (await new Promise<Slot>((resolve) => waiting.push(resolve)));
    slot.hits.length = 0;
    try {
      return await work(slot);
    } finally {
      const next = waiting.shift();
      if (next !== undefined) next(slot);
      else free.push(slot);
    }
  };
  const run = (c: CommandCase, timeoutMs = 15_000) =>
    withSlot(async (slot) => {
      const cwd = mkdtempSync(path.join(homeDir, "run-"));
      for (const [name, text] of Object.entries(c.files ?? {})) writeFileSync(path.join(cwd, name), withPort(text, slot.port));
      const command = withPort(c.command, slot.port);
      await new Promise<void>((resolve) => {
        const child = spawn("bash", ["-c", command], { cwd, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: homeDir, TERM: "dumb" }, stdio: "ignore", detached: true });
        // The whole process group: a program may leave children (aria2c, a browser's helpers).
        const timer = setTimeout(() => {
          try {
            if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
          } catch {
            // already gone
          }
        }, timeoutMs);
        child.on("close", () => {
          clearTimeout(timer);
          resolve();
        });
      });
      // Let the listeners' connection events land.
      await new Promise((resolve) => setTimeout(resolve, 20));
      rmSync(cwd, { recursive: true, force: true });
      return { command, reached: [...new Set(slot.hits)] };
    });
  return {
    withSlot,
    run,
    close() {
      for (const slot of slots) for (const server of slot.servers) server.close();
      rmSync(homeDir, { recursive: true, force: true });
    },
  };
}

/** What each policy decided for the commands a program sent to loopback, for a summary line. */
export type ReachedLog = { command: string; modes: Record<string, string> }[];

/**
 * A command that reached the loopback addresses `reached`: no policy of `policies` may allow it
 * (the message names the case's source and the policy's reason); the decisions go to `log`.
 */
export function expectNotAllowed(policies: Readonly<Record<string, PermissionPolicy>>, command: string, reached: readonly string[], source: string, log: ReachedLog): void {
  const modes: Record<string, string> = {};
  for (const [name, policy] of Object.entries(policies)) {
    const decision = policy.decide("Bash", { command });
    modes[name] = decision.mode;
    expect(decision.mode, `${command} reached ${reached.join(", ")} [${source}] under ${name}: ${decision.reason ?? ""}`).not.toBe("allow");
  }
  log.push({ command, modes });
}

/** With GG_ORACLE_SUMMARY=1: how many commands ran, how many reached loopback, and each policy's decisions on those. */
export function printSummary(name: string, cases: number, log: ReachedLog): void {
  if (process.env.GG_ORACLE_SUMMARY !== "1") return;
  const tally: Record<string, Record<string, number>> = {};
  for (const { modes } of log) for (const [policy, mode] of Object.entries(modes)) (tally[policy] ??= {})[mode] = (tally[policy]![mode] ?? 0) + 1;
  console.log(`${name}: ${cases} commands, ${log.length} reached loopback; ${Object.entries(tally).map(([policy, counts]) => `${policy} ${JSON.stringify(counts)}`).join(", ")}`);
}

/** Plain commands that reach no loopback listener: every policy allows them (the policies are not vacuous). */
export function expectAllowed(policies: Readonly<Record<string, PermissionPolicy>>, commands: readonly string[]): void {
  for (const command of commands) for (const [name, policy] of Object.entries(policies)) expect(policy.decide("Bash", { command }).mode, `${command} under ${name}`).toBe("allow");
}
