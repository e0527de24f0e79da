import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Killswitch } from "../../src/killswitch/index.js";

export interface LocalKillswitch {
  killswitch: Killswitch;
  close(): Promise<void>;
}

/** A Killswitch fed by a remote policy served from a local HTTP server (fetched once, fresh for 10 min). */
export async function localKillswitch(policy: { denyTools: string[]; askTools: string[] }): Promise<LocalKillswitch> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json", etag: '"bench"' });
    res.end(JSON.stringify(policy));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const killswitch = new Killswitch({ url: `http://127.0.0.1:${port}/policy`, ttlMs: 600_000, maxAgeMs: 900_000 });
  await killswitch.start();
  if (killswitch.snapshot().status !== "ok") throw new Error(`killswitch not ok: ${killswitch.snapshot().reason}`);
  return {
    killswitch,
    close: async () => {
      await killswitch.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
