import { afterEach, describe, expect, it } from "vitest";
import type { Killswitch } from "../src/killswitch/index.js";
import { downUrl, json, manualClock, startedInTest } from "./killswitch-helpers.js";

const { serve, killswitch, stopAll } = startedInTest();
afterEach(stopAll);

/** Restricted in the default deny-risky mode: risky tools denied, low-risk ones left alone. */
function expectDenyRisky(k: Killswitch, reasonPart: RegExp) {
  const snap = k.snapshot();
  expect(snap.status).toBe("restricted");
  expect(snap.reason).toMatch(reasonPart);
  for (const risk of ["medium", "high", "always-deny"] as const) {
    const decision = k.decide("deploy", risk);
    expect(decision?.mode).toBe("deny");
    expect(decision?.ruleId).toBe("killswitch:restricted");
    expect(decision?.reason).toMatch(reasonPart);
  }
  expect(k.decide("read_file", "low")).toBeNull();
  expect(k.bypassAllowed()).toBe(false);
}

describe("killswitch fails safe", () => {
  it("is restricted before the first fetch", () => {
    const k = killswitch({ url: "http://127.0.0.1:9/policy" });
    k.decide("noop", "low"); // would start a background fetch; stop() below aborts it
    expectDenyRisky(k, /no successful fetch/);
  });

  it("restricts when the server is down (connection refused)", async () => {
    const url = await downUrl();
    const k = killswitch({ url });
    await k.start();
    expectDenyRisky(k, /ECONNREFUSED/);
    expect(k.snapshot().reason).toContain(url);
  });

  it("restricts when the server does not answer within the timeout", async () => {
    const server = await serve(() => undefined); // never answers
    const k = killswitch({ url: `${server.url}/policy`, timeoutMs: 150 });
    const started = Date.now();
    await k.start();
    expect(Date.now() - started).toBeLessThan(5_000);
    expectDenyRisky(k, /timed out after 150 ms/);
  });

  it("restricts when the body trickles in past the timeout (the timeout covers the body)", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"stopAll":');
      const timer = setInterval(() => res.write(" "), 40);
      res.on("close", () => clearInterval(timer));
    });
    const k = killswitch({ url: `${server.url}/policy`, timeoutMs: 200 });
    await k.start();
    expectDenyRisky(k, /timed out after 200 ms/);
  });

  it("restricts on HTTP 500", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(500);
      res.end(JSON.stringify({ stopAll: false }));
    });
    const k = killswitch({ url: `${server.url}/policy` });
    await k.start();
    expectDenyRisky(k, new RegExp(`HTTP 500 from ${server.url}/policy`));
  });

  it("restricts on a body that is not JSON, and on JSON that is not a policy", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("<html>surprise</html>");
    });
    const k = killswitch({ url: `${server.url}/policy` });
    await k.start();
    expectDenyRisky(k, /is not JSON/);

    server.handler = json({ stopAll: "no", unknownField: 1 });
    await k.refresh();
    expectDenyRisky(k, /not a valid killswitch policy/);
  });

  it("restricts on a 50 MB streamed body and stops reading long before the end", async () => {
    const total = 50 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let written = 0;
    let closedAfter = -1;
    const server = await serve(async (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" }); // chunked: no Content-Length
      const closed = new Promise<void>((resolve) =>
        res.on("close", () => {
          if (closedAfter < 0) closedAfter = written;
          resolve();
        }),
      );
      while (written < total && !res.destroyed) {
        written += chunk.length;
        if (!res.write(chunk)) {
          const drained = new Promise<void>((resolve) => res.once("drain", resolve));
          await Promise.race([drained, closed]);
        }
      }
      res.end();
    });
    const k = killswitch({ url: `${server.url}/policy`, maxBytes: 100_000 });
    await k.start();
    expectDenyRisky(k, /over the limit of 100000 bytes/);
    await expect.poll(() => closedAfter, { timeout: 5_000 }).toBeGreaterThanOrEqual(0);
    // Only loopback socket buffers' worth (a few MB) was written before the client hung up, not 50 MB.
    expect(closedAfter).toBeLessThan(16 * 1024 * 1024);
  });

  it("refuses a declared Content-Length over the limit without reading the body", async () => {
    let closed = false;
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(50 * 1024 * 1024) });
      res.write("{");
      res.on("close", () => {
        closed = true;
      });
    });
    const k = killswitch({ url: `${server.url}/policy`, maxBytes: 1_000 });
    await k.start();
    expectDenyRisky(k, /52428800 bytes, over the limit of 1000 bytes/);
    await expect.poll(() => closed, { timeout: 5_000 }).toBe(true);
  });

  it("restricts on a redirect loop", async () => {
    const server = await serve((req, res) => {
      res.writeHead(302, { location: req.url === "/a" ? "/b" : "/a" });
      res.end();
    });
    const k = killswitch({ url: `${server.url}/a`, maxRedirects: 10 });
    await k.start();
    expectDenyRisky(k, /redirect loop/);
    expect(server.requests.map((r) => r.url)).toEqual(["/a", "/b"]);
  });

  it("restricts after maxRedirects hops of an endless chain", async () => {
    const server = await serve((req, res) => {
      const n = Number(req.url?.split("/").pop());
      res.writeHead(307, { location: `/r/${n + 1}` });
      res.end();
    });
    const k = killswitch({ url: `${server.url}/r/0`, maxRedirects: 3 });
    await k.start();
    expectDenyRisky(k, /too many redirects: more than 3/);
    expect(server.requests).toHaveLength(4);
  });

  it("follows a redirect to the policy, sending the token only to the configured origin", async () => {
    const other = await serve(json({ denyTools: ["x"] }));
    const server = await serve((req, res) => {
      res.writeHead(301, { location: req.url === "/old" ? "/new" : `${other.url}/policy` });
      res.end();
    });
    const k = killswitch(
      { url: `${server.url}/old`, headers: { authorization: "Bearer ${TOKEN}" }, allowedRedirectOrigins: [other.url] },
      { env: { TOKEN: "t0k" } },
    );
    await k.start();
    expect(k.snapshot().status).toBe("ok");
    expect(k.decide("x", "low")?.ruleId).toBe("killswitch:deny-tools");
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(["Bearer t0k", "Bearer t0k"]);
    expect(other.requests[0]?.headers.authorization).toBeUndefined();
  });

  it("counts a policy older than maxAgeMs as a failure, then reports the failed refresh", async () => {
    const clock = manualClock();
    const server = await serve(json({ askTools: ["email_*"] }));
    const k = killswitch({ url: `${server.url}/policy`, ttlMs: 10_000, maxAgeMs: 30_000 }, { now: clock.now });
    await k.start();
    expect(k.snapshot().status).toBe("ok");
    expect(k.decide("deploy", "high")).toBeNull();

    await server.close();
    clock.advance(30_001);
    // Synchronous: staleness is computed at call time, before any refresh has answered.
    expectDenyRisky(k, /stale policy: .* older than the max age of 30000 ms/);
    // The last known policy still applies while restricted.
    expect(k.decide("email_send", "low")?.ruleId).toBe("killswitch:ask-tools");

    await k.refresh();
    expectDenyRisky(k, /ECONNREFUSED/);
  });

  it("notices staleness on the real clock while a refresh hangs, without any call reading the network", async () => {
    let served = 0;
    const server = await serve((_req, res) => {
      served += 1;
      if (served > 1) return; // every refresh hangs
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
    const k = killswitch({ url: `${server.url}/p`, ttlMs: 100, refreshAheadMs: 0, maxAgeMs: 250, timeoutMs: 10_000 });
    await k.start();
    expect(k.decide("deploy", "high")).toBeNull();
    await expect
      .poll(() => k.decide("deploy", "high")?.reason ?? "", { timeout: 5_000, interval: 10 })
      .toMatch(/^killswitch restricted: stale policy/);
    expect(served).toBe(2);
    expect(k.decide("read_file", "low")).toBeNull();
  });

  it("asks for every non-low call in ask-non-low mode", async () => {
    const k = killswitch({ url: await downUrl(), onFailure: "ask-non-low" });
    await k.start();
    const snap = k.snapshot();
    expect(snap).toMatchObject({ status: "restricted", restrictMode: "ask-non-low" });
    for (const risk of ["medium", "high", "always-deny"] as const) {
      expect(k.decide("deploy", risk)).toMatchObject({ mode: "ask", ruleId: "killswitch:restricted" });
    }
    expect(k.decide("deploy", "high")?.reason).toMatch(/^killswitch restricted: .*ECONNREFUSED.*ask-non-low/);
    expect(k.decide("read_file", "low")).toBeNull();
    expect(k.bypassAllowed()).toBe(false);
  });

  it("lets a restricted-mode deny beat a remote ask, and a remote deny beat restricted ask", async () => {
    const clock = manualClock();
    const server = await serve(json({ askTools: ["deploy"], denyTools: ["drop_*"] }));
    const k = killswitch({ url: `${server.url}/p`, maxAgeMs: 1_000, ttlMs: 1_000 }, { now: clock.now });
    await k.start();
    await server.close();
    clock.advance(1_001);
    expect(k.decide("deploy", "high")?.ruleId).toBe("killswitch:restricted");
    expect(k.decide("deploy", "low")?.ruleId).toBe("killswitch:ask-tools");
    expect(k.decide("drop_table", "low")?.ruleId).toBe("killswitch:deny-tools");
  });

  it("restricts when a header needs an unset environment variable, without calling the server", async () => {
    const server = await serve(json({}));
    const k = killswitch({ url: `${server.url}/p`, headers: { authorization: "Bearer ${MISSING_TOKEN}" } }, { env: {} });
    await k.start();
    expectDenyRisky(k, /environment variable MISSING_TOKEN/);
    expect(server.requests).toHaveLength(0);
  });

  it("stop() aborts a fetch in flight and later calls never fetch", async () => {
    const server = await serve(() => undefined);
    const k = killswitch({ url: `${server.url}/p`, timeoutMs: 20_000 });
    const started = k.start();
    await expect.poll(() => server.requests.length).toBe(1);
    const t = Date.now();
    await k.stop();
    await started;
    expect(Date.now() - t).toBeLessThan(5_000);
    k.decide("x", "high");
    await k.refresh();
    expect(server.requests).toHaveLength(1);
    expect(k.snapshot().status).toBe("restricted");
  });
});
