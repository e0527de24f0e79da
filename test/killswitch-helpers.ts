import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { AuditQuery, AuditRecord, AuditSink } from "../src/audit/types.js";
import { Killswitch, type KillswitchConfigInput, type KillswitchOptions } from "../src/killswitch/index.js";

export type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** A loopback HTTP server on port 0 whose handler can be swapped mid-test; it records each request. */
export interface TestServer {
  readonly url: string;
  readonly requests: IncomingMessage[];
  handler: Handler;
  close(): Promise<void>;
}

/** With `tls` (a key and certificate), an HTTPS server. */
export async function startServer(handler: Handler, tls?: { key: string; cert: string }): Promise<TestServer> {
  const requests: IncomingMessage[] = [];
  const state: { handler: Handler } = { handler };
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    requests.push(req);
    void Promise.resolve(state.handler(req, res)).catch(() => res.destroy());
  };
  const server: Server = tls === undefined ? createServer(listener) : createHttpsServer({ key: tls.key, cert: tls.cert }, listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls === undefined ? "http" : "https"}://127.0.0.1:${port}`,
    requests,
    get handler() {
      return state.handler;
    },
    set handler(next: Handler) {
      state.handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Starts test servers and killswitches and remembers them; `stopAll` (for afterEach) stops the
 * killswitches, then closes the servers.
 */
export function startedInTest() {
  const servers: TestServer[] = [];
  const switches: Killswitch[] = [];
  return {
    async serve(handler: Handler): Promise<TestServer> {
      const server = await startServer(handler);
      servers.push(server);
      return server;
    },
    killswitch(config: KillswitchConfigInput, options?: KillswitchOptions): Killswitch {
      const k = new Killswitch(config, options);
      switches.push(k);
      return k;
    },
    async stopAll(): Promise<void> {
      await Promise.all(switches.splice(0).map((k) => k.stop()));
      await Promise.all(servers.splice(0).map((s) => s.close()));
    },
  };
}

/** A URL on which nothing listens: a server is started to get a free port, then closed. */
export async function downUrl(): Promise<string> {
  const server = await startServer(() => undefined);
  await server.close();
  return `${server.url}/policy`;
}

export function json(body: unknown, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(200, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
}

/** An audit sink backed by an array, dropping duplicate ids like the real sinks. */
export class ArraySink implements AuditSink {
  readonly records: AuditRecord[] = [];
  async write(records: readonly AuditRecord[]): Promise<void> {
    for (const record of records) {
      if (!this.records.some((r) => r.id === record.id)) this.records.push(record);
    }
  }
  async query(query: AuditQuery = {}): Promise<AuditRecord[]> {
    return this.records.filter((r) => query.after === undefined || r.at > query.after).slice(0, query.limit);
  }
  async close(): Promise<void> {}
}

/** A clock the test moves by hand. */
export function manualClock(start = 1_700_000_000_000) {
  let t = start;
  return {
    now: () => t,
    advance(ms: number) {
      t += ms;
    },
  };
}
