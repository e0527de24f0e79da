// Redirects of the killswitch's policy fetch, against real loopback servers (http, and https with a
// self-signed certificate made by openssl at test time): never from https to plain http, never to
// another origin unless it is listed in allowedRedirectOrigins. A refused redirect restricts, like
// any failed fetch, and the audit record names the real reason.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { KillswitchConfigSchema } from "../src/killswitch/types.js";
import { sharedKillswitch } from "../src/killswitch/shared.js";
import { ArraySink, json, startedInTest, startServer, type Handler, type TestServer } from "./killswitch-helpers.js";

const { serve, killswitch, stopAll } = startedInTest();

/** A self-signed certificate for 127.0.0.1, and a dispatcher that trusts only it. */
let tls: { key: string; cert: string; dir: string };
let trusting: Agent;
const httpsServers: TestServer[] = [];

beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), "gg-ks-tls-"));
  execFileSync("openssl", [
    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"),
  ], { stdio: "ignore" });
  tls = { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8"), dir };
  trusting = new Agent({ connect: { ca: tls.cert } });
});

afterEach(async () => {
  await stopAll();
  await Promise.all(httpsServers.splice(0).map((s) => s.close()));
});

afterAll(async () => {
  await trusting.close();
  rmSync(tls.dir, { recursive: true, force: true });
});

async function serveHttps(handler: Handler): Promise<TestServer> {
  const served = await startServer(handler, tls);
  httpsServers.push(served);
  return served;
}

const redirectTo = (location: string, status = 302): Handler => (_req, res) => {
  res.writeHead(status, { location });
  res.end();
};

/** What an attacker who controls the redirect target serves: everything allowed, bypass on. */
const PERMISSIVE = { stopAll: false, bypassModeDisabled: false, denyTools: [], askTools: [] };

function expectRestricted(reason: RegExp, k: ReturnType<typeof killswitch>) {
  const snap = k.snapshot();
  expect(snap.status).toBe("restricted");
  expect(snap.reason).toMatch(reason);
  expect(k.decide("deploy", "high")?.mode).toBe("deny");
  expect(k.bypassAllowed()).toBe(false);
}

describe("killswitch redirects", () => {
  it("the https policy itself is fetched through the trusting dispatcher (the setup works)", async () => {
    const secure = await serveHttps(json({ denyTools: ["x"] }));
    const k = killswitch({ url: `${secure.url}/policy` }, { dispatcher: trusting });
    await k.start();
    expect(k.snapshot().status).toBe("ok");
    expect(k.decide("x", "low")?.ruleId).toBe("killswitch:deny-tools");
  });

  it("never follows a redirect from https to plain http: restricted, the http server never asked, the audit says why", async () => {
    const plain = await serve(json(PERMISSIVE));
    const secure = await serveHttps(redirectTo(`${plain.url}/policy`));
    const audit = new ArraySink();
    const k = killswitch({ url: `${secure.url}/policy` }, { dispatcher: trusting, audit });
    await k.start();
    expectRestricted(/refused: it leaves https for plain http/, k);
    expect(k.snapshot().reason).toContain(`${plain.url}/policy`);
    expect(plain.requests).toHaveLength(0);
    await k.stop();
    const record = audit.records.find((r) => r.event === "killswitch" && r.decision === "restricted");
    expect(record?.reason).toBe(`redirect from ${secure.url}/policy to ${plain.url}/policy refused: it leaves https for plain http`);
  });

  it("https to http is refused even when the http origin is listed", async () => {
    const plain = await serve(json(PERMISSIVE));
    const secure = await serveHttps(redirectTo(`${plain.url}/policy`, 301));
    const k = killswitch({ url: `${secure.url}/policy`, allowedRedirectOrigins: [plain.url] }, { dispatcher: trusting });
    await k.start();
    expectRestricted(/leaves https for plain http/, k);
    expect(plain.requests).toHaveLength(0);
  });

  it("https to http on the same host and port is refused too (a same-origin path redirect over https is followed)", async () => {
    const secure = await serveHttps((req, res) => {
      if (req.url === "/old") return redirectTo("/new")(req, res);
      if (req.url === "/new") return redirectTo(`http://127.0.0.1:${new URL(secure.url).port}/policy`)(req, res);
      return json(PERMISSIVE)(req, res);
    });
    const k = killswitch({ url: `${secure.url}/old` }, { dispatcher: trusting });
    await k.start();
    expectRestricted(new RegExp(`redirect from ${secure.url}/new to http://127\\.0\\.0\\.1:\\d+/policy refused: it leaves https`), k);
    expect(secure.requests.map((r) => r.url)).toEqual(["/old", "/new"]);
  });

  it("a fresh policy, then a redirect to another origin: restricted (fail closed), the last policy still applies, audited", async () => {
    const other = await serve(json(PERMISSIVE));
    const server = await serve(json({ askTools: ["email_*"], bypassModeDisabled: false }));
    const audit = new ArraySink();
    const k = killswitch({ url: `${server.url}/policy` }, { audit });
    await k.start();
    expect(k.snapshot().status).toBe("ok");
    server.handler = redirectTo(`${other.url}/policy`, 307);
    await k.refresh();
    expectRestricted(/is another origin than the policy's own .*; list it in allowedRedirectOrigins/, k);
    expect(k.decide("email_send", "low")?.ruleId).toBe("killswitch:ask-tools");
    expect(other.requests).toHaveLength(0);
    await k.stop();
    expect(audit.records.map((r) => r.decision)).toEqual(["ok", "restricted"]);
    expect(audit.records[1]?.reason).toBe(
      `redirect from ${server.url}/policy to ${other.url}/policy refused: ${other.url} is another origin than the policy's own (${server.url}); list it in allowedRedirectOrigins to follow such a redirect`,
    );
  });

  it("a scheme-relative or absolute redirect to another port is another origin", async () => {
    const other = await serve(json(PERMISSIVE));
    const server = await serve(redirectTo(`//127.0.0.1:${new URL(other.url).port}/policy`));
    const k = killswitch({ url: `${server.url}/policy` });
    await k.start();
    expectRestricted(/another origin/, k);
    expect(other.requests).toHaveLength(0);
  });

  it("https to another https origin is refused unless listed, then followed (without the configured headers)", async () => {
    const target = await serveHttps(json({ denyTools: ["x"] }));
    const secure = await serveHttps(redirectTo(`${target.url}/policy`));
    const refused = killswitch({ url: `${secure.url}/policy` }, { dispatcher: trusting });
    await refused.start();
    expectRestricted(/another origin/, refused);
    expect(target.requests).toHaveLength(0);

    const followed = killswitch(
      { url: `${secure.url}/policy`, allowedRedirectOrigins: [`${target.url}/`], headers: { authorization: "Bearer t0k" } },
      { dispatcher: trusting },
    );
    await followed.start();
    expect(followed.snapshot().status).toBe("ok");
    expect(followed.decide("x", "low")?.ruleId).toBe("killswitch:deny-tools");
    expect(target.requests).toHaveLength(1);
    expect(target.requests[0]?.headers.authorization).toBeUndefined();
  });

  it("a listed origin does not open the chain beyond it: a second hop to an unlisted origin is refused", async () => {
    const third = await serve(json(PERMISSIVE));
    const second = await serve(redirectTo(`${third.url}/policy`));
    const first = await serve(redirectTo(`${second.url}/policy`));
    const k = killswitch({ url: `${first.url}/policy`, allowedRedirectOrigins: [second.url] });
    await k.start();
    expectRestricted(new RegExp(`redirect from ${second.url}/policy to ${third.url}/policy refused`), k);
    expect(third.requests).toHaveLength(0);
  });

  it("allowedRedirectOrigins takes origins only, read as the URL parser reads them", () => {
    const parse = (origins: string[]) => KillswitchConfigSchema.parse({ url: "https://p.example.com/policy", allowedRedirectOrigins: origins });
    expect(parse(["https://CDN.example.com:443", "http://127.0.0.1:8080/"]).allowedRedirectOrigins).toEqual(["https://cdn.example.com", "http://127.0.0.1:8080"]);
    for (const bad of ["https://cdn.example.com/policy", "cdn.example.com", "ftp://cdn.example.com", "https://user@cdn.example.com", "https://cdn.example.com?x", "https://cdn.example.com#x", "*"]) {
      expect(() => parse([bad]), bad).toThrow(/is not an origin: write scheme:\/\/host\[:port\]/);
    }
  });

  it("shared killswitches with different allowed redirect origins are different instances", async () => {
    const a = sharedKillswitch({ url: "http://127.0.0.1:9/p" });
    const b = sharedKillswitch({ url: "http://127.0.0.1:9/p", allowedRedirectOrigins: ["https://cdn.example.com"] });
    const c = sharedKillswitch({ url: "http://127.0.0.1:9/p", allowedRedirectOrigins: [] });
    try {
      expect(a.killswitch).not.toBe(b.killswitch);
      expect(a.killswitch).toBe(c.killswitch);
    } finally {
      await Promise.all([a.release(), b.release(), c.release()]);
    }
  });
});
