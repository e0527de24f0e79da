import { afterEach, describe, expect, it } from "vitest";
import {
  Killswitch,
  sharedKillswitch,
  transitionRecord,
  type KillswitchLease,
  type KillswitchTransition,
  type RemotePolicy,
} from "../src/killswitch/index.js";
import { ArraySink, json, manualClock, startedInTest } from "./killswitch-helpers.js";

const { serve, killswitch, stopAll } = startedInTest();
const leases: KillswitchLease[] = [];

afterEach(async () => {
  await Promise.all(leases.splice(0).map((l) => l.release()));
  await stopAll();
});

function nextTransition(k: Killswitch): Promise<KillswitchTransition> {
  return new Promise((resolve) => {
    const off = k.onTransition((t) => {
      off();
      resolve(t);
    });
  });
}

/** Serves whatever `policy.current` is, with an ETag per version, answering 304 to a matching If-None-Match. */
function versionedPolicy(initial: Partial<RemotePolicy>) {
  const state = { current: initial, version: 1, conditionalHits: 0, notModified: 0 };
  const handler = (req: { headers: Record<string, string | string[] | undefined> }, res: import("node:http").ServerResponse) => {
    const etag = `"v${state.version}"`;
    if (req.headers["if-none-match"] !== undefined) state.conditionalHits += 1;
    if (req.headers["if-none-match"] === etag) {
      state.notModified += 1;
      res.writeHead(304, { etag });
      res.end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json", etag });
    res.end(JSON.stringify(state.current));
  };
  return {
    state,
    handler,
    flip(next: Partial<RemotePolicy>) {
      state.current = next;
      state.version += 1;
    },
  };
}

describe("killswitch follows the remote policy", () => {
  it("is ok with a valid policy and has no opinion on unlisted tools", async () => {
    const server = await serve(json({}));
    const k = killswitch({ url: `${server.url}/policy` });
    await k.start();
    expect(k.snapshot()).toMatchObject({ status: "ok", reason: undefined, restrictMode: "deny-risky" });
    expect(k.snapshot().fetchedAt).toBeTypeOf("number");
    for (const risk of ["low", "medium", "high", "always-deny"] as const) expect(k.decide("deploy", risk)).toBeNull();
    // A missing bypassModeDisabled means its restrictive value (seed 003: policy.get("bypass_mode_disabled", True)).
    expect(k.bypassAllowed()).toBe(false);
  });

  it("reads a document that starts with a byte order mark (a file a Windows editor saved, served as is)", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(`\ufeff${JSON.stringify({ stopAll: false, denyTools: ["deploy"] })}`);
    });
    const k = killswitch({ url: `${server.url}/policy` });
    await k.start();
    expect(k.snapshot()).toMatchObject({ status: "ok", reason: undefined });
    expect(k.decide("deploy", "low")?.mode).toBe("deny");
    expect(k.decide("read_file", "low")).toBeNull();
  });

  it("allows bypass only when the document says bypassModeDisabled: false", async () => {
    const server = await serve(json({ bypassModeDisabled: false }));
    const k = killswitch({ url: `${server.url}/policy` });
    await k.start();
    expect(k.bypassAllowed()).toBe(true);
  });

  it("reads the seed's snake_case document as written", async () => {
    for (const [doc, allowed] of [
      [{ bypass_mode_disabled: true }, false],
      [{ bypass_mode_disabled: false }, true],
    ] as const) {
      const server = await serve(json(doc));
      const k = killswitch({ url: `${server.url}/policy` });
      await k.start();
      expect(k.snapshot().status).toBe("ok");
      expect(k.bypassAllowed()).toBe(allowed);
      expect(k.decide("deploy", "high")).toBeNull();
    }
    const server = await serve(json({ stop_all: true, deny_tools: ["x"], ask_tools: ["y"] }));
    const k = killswitch({ url: `${server.url}/policy` });
    await k.start();
    expect(k.decide("anything", "low")?.ruleId).toBe("killswitch:stop-all");
  });

  it("refuses a document that gives one key in both spellings, and restricts", async () => {
    const server = await serve(json({ bypassModeDisabled: false, bypass_mode_disabled: true }));
    const k = killswitch({ url: `${server.url}/policy` });
    await k.start();
    expect(k.snapshot().status).toBe("restricted");
    expect(k.snapshot().reason).toMatch(/bypass_mode_disabled: bypassModeDisabled and bypass_mode_disabled are the same key/);
    expect(k.bypassAllowed()).toBe(false);
  });

  it("denies by name and glob, asks by glob, and disables bypass", async () => {
    const server = await serve(
      json({ denyTools: ["kubectl_*", "drop_table"], askTools: ["send_*"], bypassModeDisabled: true, reason: "incident 42" }),
    );
    const k = killswitch({ url: `${server.url}/policy` });
    await k.start();
    expect(k.snapshot().status).toBe("ok");
    const denied = k.decide("kubectl_delete", "low");
    expect(denied).toMatchObject({ mode: "deny", ruleId: "killswitch:deny-tools" });
    expect(denied?.reason).toContain('"kubectl_delete"');
    expect(denied?.reason).toContain('denyTools "kubectl_*"');
    expect(denied?.reason).toContain("incident 42");
    expect(k.decide("KUBECTL_get", "low")?.mode).toBe("deny");
    expect(k.decide("drop_table", "medium")?.mode).toBe("deny");
    expect(k.decide("drop_tables", "medium")).toBeNull();
    expect(k.decide("send_email", "low")).toMatchObject({ mode: "ask", ruleId: "killswitch:ask-tools" });
    expect(k.decide("read_file", "low")).toBeNull();
    expect(k.bypassAllowed()).toBe(false);
  });

  it("stopAll denies every call, low risk included", async () => {
    const server = await serve(json({ stopAll: true, reason: "breach" }));
    const k = killswitch({ url: `${server.url}/policy` });
    await k.start();
    for (const tool of ["read_file", "search", "deploy"]) {
      const decision = k.decide(tool, "low");
      expect(decision).toMatchObject({ mode: "deny", ruleId: "killswitch:stop-all" });
      expect(decision?.reason).toMatch(/every tool call is stopped .*breach/);
    }
  });

  it("follows a policy flipped on the server mid run, after a background refresh", async () => {
    const clock = manualClock();
    const policy = versionedPolicy({});
    const server = await serve(policy.handler);
    const k = killswitch({ url: `${server.url}/policy`, ttlMs: 60_000 }, { now: clock.now });
    await k.start();
    expect(k.decide("deploy", "high")).toBeNull();

    policy.flip({ denyTools: ["deploy"] });
    expect(k.decide("deploy", "high")).toBeNull(); // still fresh: the cache answers
    expect(server.requests).toHaveLength(1);

    clock.advance(60_000);
    const changed = nextTransition(k);
    expect(k.decide("deploy", "high")).toBeNull(); // expired: refresh starts, this call does not wait
    const transition = await changed;
    expect(transition.to.policy?.denyTools).toEqual(["deploy"]);
    expect(k.decide("deploy", "high")?.ruleId).toBe("killswitch:deny-tools");

    policy.flip({ stopAll: true });
    await k.refresh();
    expect(k.decide("read_file", "low")?.ruleId).toBe("killswitch:stop-all");
    policy.flip({});
    await k.refresh();
    expect(k.decide("read_file", "low")).toBeNull();
  });

  it("refreshes in the background before expiry on its own timer", async () => {
    const policy = versionedPolicy({});
    const server = await serve(policy.handler);
    const k = killswitch({ url: `${server.url}/policy`, ttlMs: 300, refreshAheadMs: 150, maxAgeMs: 60_000 });
    await k.start();
    policy.flip({ denyTools: ["deploy"] });
    await expect.poll(() => k.decide("deploy", "low")?.ruleId, { timeout: 5_000, interval: 20 }).toBe("killswitch:deny-tools");
    expect(k.snapshot().status).toBe("ok");
  });

  it("sends If-None-Match and keeps the policy on 304, renewing its freshness", async () => {
    const clock = manualClock();
    const policy = versionedPolicy({ askTools: ["deploy"] });
    const server = await serve(policy.handler);
    const k = killswitch({ url: `${server.url}/policy`, ttlMs: 10_000, maxAgeMs: 15_000 }, { now: clock.now });
    const transitions: KillswitchTransition[] = [];
    k.onTransition((t) => transitions.push(t));
    await k.start();
    const firstFetch = k.snapshot().fetchedAt ?? 0;
    expect(server.requests[0]?.headers["if-none-match"]).toBeUndefined();

    clock.advance(10_000);
    await k.refresh();
    clock.advance(10_000); // 20 s after the first fetch, 10 s after the 304: fresh, not stale
    const snap = k.snapshot();
    expect(policy.state.conditionalHits).toBe(1);
    expect(policy.state.notModified).toBe(1);
    expect(server.requests[1]?.headers["if-none-match"]).toBe('"v1"');
    expect(snap.status).toBe("ok");
    expect(snap.fetchedAt).toBe(firstFetch + 10_000);
    expect(k.decide("deploy", "low")?.ruleId).toBe("killswitch:ask-tools");
    expect(transitions).toHaveLength(1); // only restricted → ok; a 304 changes nothing
  });

  it("makes at most one fetch for 1,000 synchronous decisions within the TTL", async () => {
    const server = await serve(json({ askTools: ["send_*"] }));
    const k = killswitch({ url: `${server.url}/policy`, ttlMs: 60_000 });
    await k.start();
    expect(server.requests).toHaveLength(1);
    for (let i = 0; i < 1_000; i++) {
      const decision = k.decide(`tool_${i % 20}`, i % 2 === 0 ? "high" : "low");
      expect(decision === null || typeof (decision as { then?: unknown }).then === "undefined").toBe(true);
    }
    expect(k.decide("send_x", "low")?.mode).toBe("ask");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.requests).toHaveLength(1);
  });

  it("shares one fetch among everything waiting when the cache expired, and never blocks decide", async () => {
    const clock = manualClock();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let served = 0;
    const server = await serve(async (_req, res) => {
      served += 1;
      if (served > 1) await gate; // the refresh hangs until the test releases it
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ denyTools: served > 1 ? ["deploy"] : [] }));
    });
    const k = killswitch({ url: `${server.url}/policy`, ttlMs: 1_000, maxAgeMs: 60_000, timeoutMs: 10_000 }, { now: clock.now });
    await k.start();
    clock.advance(1_000);
    for (let i = 0; i < 1_000; i++) expect(k.decide("deploy", "high")).toBeNull();
    const waiting = Array.from({ length: 10 }, () => k.refresh());
    await expect.poll(() => server.requests.length).toBe(2);
    release();
    await Promise.all(waiting);
    expect(server.requests).toHaveLength(2);
    expect(k.decide("deploy", "high")?.ruleId).toBe("killswitch:deny-tools");
  });

  it("writes every transition to the audit sink with deterministic ids", async () => {
    const clock = manualClock();
    const sink = new ArraySink();
    const server = await serve((_req, res) => {
      res.writeHead(500);
      res.end();
    });
    const url = `${server.url}/policy`;
    const k = killswitch({ url }, { now: clock.now, audit: sink });
    await k.start(); // no fetch yet → HTTP 500 (reason change)
    clock.advance(1);
    server.handler = json({ denyTools: ["x"] });
    await k.refresh(); // restricted → ok
    clock.advance(1);
    server.handler = json({ denyTools: ["y"] });
    await k.refresh(); // ok, policy changed
    clock.advance(1);
    await k.refresh(); // same policy: no transition
    clock.advance(1);
    server.handler = json({ garbage: true });
    await k.refresh(); // ok → restricted
    await k.stop(); // flushes audit writes

    const records = sink.records;
    expect(records.map((r) => [r.decision, r.ruleId])).toEqual([
      ["restricted", "killswitch:restricted"],
      ["ok", "killswitch:ok"],
      ["ok", "killswitch:ok"],
      ["restricted", "killswitch:restricted"],
    ]);
    expect(records.every((r) => r.event === "killswitch" && r.tool === "*")).toBe(true);
    expect(new Set(records.map((r) => r.id)).size).toBe(4);
    expect(records[0]?.reason).toBe(`HTTP 500 from ${url}`);
    expect(records[0]?.detail?.from).toEqual({ status: "restricted", reason: "no successful fetch of the remote policy yet" });
    expect(records[2]?.detail?.policy).toMatchObject({ denyTools: ["y"] });
    expect(records[3]?.reason).toMatch(/not a valid killswitch policy/);
    expect(records[3]?.at).toBe(clock.now());

    const again: KillswitchTransition = {
      at: records[0]?.at ?? 0,
      url,
      from: { status: "restricted", reason: "no successful fetch of the remote policy yet" },
      to: { status: "restricted", reason: `HTTP 500 from ${url}`, restrictMode: "deny-risky" },
    };
    expect(transitionRecord(again).id).toBe(records[0]?.id);
  });

  it("substitutes ${TOKEN} in headers from the environment", async () => {
    const server = await serve(json({}));
    const k = killswitch(
      { url: `${server.url}/policy`, headers: { Authorization: "Bearer ${TOKEN}", "X-Agent": "guard-${ENV_NAME}" } },
      { env: { TOKEN: "s3cr3t", ENV_NAME: "prod" } },
    );
    await k.start();
    expect(k.snapshot().status).toBe("ok");
    expect(server.requests[0]?.headers.authorization).toBe("Bearer s3cr3t");
    expect(server.requests[0]?.headers["x-agent"]).toBe("guard-prod");
  });

  it("rejects an invalid configuration when it is built", () => {
    expect(() => new Killswitch({ url: "not a url" })).toThrow();
    expect(() => new Killswitch({ url: "http://127.0.0.1/p", ttlMs: -1 })).toThrow();
    expect(() => new Killswitch({ url: "http://127.0.0.1/p", onFailure: "allow-all" as "deny-risky" })).toThrow();
  });

  it("shares one killswitch per URL and headers in the process, reference counted", async () => {
    const server = await serve(json({ denyTools: ["deploy"] }));
    const config = { url: `${server.url}/policy` };
    const a = sharedKillswitch(config);
    const b = sharedKillswitch({ ...config, ttlMs: 5_000 });
    const other = sharedKillswitch({ ...config, headers: { "x-team": "b" } });
    leases.push(a, b, other);
    expect(b.killswitch).toBe(a.killswitch);
    expect(other.killswitch).not.toBe(a.killswitch);
    await a.killswitch.start();
    await other.killswitch.start();
    expect(server.requests).toHaveLength(2);
    expect(b.killswitch.decide("deploy", "low")?.ruleId).toBe("killswitch:deny-tools");

    await a.release();
    await a.release(); // idempotent: does not drop b's reference
    expect(sharedKillswitch(config).killswitch).toBe(b.killswitch);
    leases.push(sharedKillswitch(config)); // one more holder, released in afterEach
  });

  it("stops the shared killswitch when the last lease is released", async () => {
    const server = await serve(json({}));
    const config = { url: `${server.url}/policy` };
    const a = sharedKillswitch(config);
    await a.killswitch.start();
    await a.release();
    a.killswitch.decide("x", "high");
    await a.killswitch.refresh();
    expect(server.requests).toHaveLength(1);
    const fresh = sharedKillswitch(config);
    leases.push(fresh);
    expect(fresh.killswitch).not.toBe(a.killswitch);
  });
});
