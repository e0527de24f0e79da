/**
 * Public SSRF-filter and path-escape reports not covered by the earlier rounds, each class judged by
 * the real thing this machine has:
 * - the IPv6 loopback and unspecified addresses (`[::1]`, `[::]`, `[0::1]`, `[000:0:0000::01]`)
 *   against a deny list that names the IPv4 loopback only: a server listening the way Node's
 *   `server.listen(port)` does (the unspecified address, both families) is reached by curl, wget,
 *   wget2, HTTPie and aria2c through each of them; Python's `ipaddress` judges generated spellings
 *   (`is_loopback`, `is_unspecified`) [swisskyrepo/PayloadsAllTheThings 'Bypass localhost with [::]'
 *   and PR #650; coreruleset/coreruleset#3219 (`[0::1]`, `[0:0::1]`, ...) and #4427 (`ip6-localhost`);
 *   n24q02m/better-telegram-mcp#901 (`http://[::]/` past an IPv4-only loopback check);
 *   NeySlim/ultimate-ca-manager#182 (`0.0.0.0`, `::` reach loopback); CVE-2024-29415 (indutny/node-ip
 *   #165: `000:0:0000::01` read as public)];
 * - 1u.ms rebinding names in every form its server reads (`169.254-169.254` with mixed separators,
 *   `ip-127o0o0o1`, `hex-...`, `ip-v6-cc1`, `-and-` lists, `cname-`): the server's own rules
 *   (neex/1u.ms processors.go and README), re-implemented in Python with `ipaddress` as the judge of
 *   each address, over generated names [swisskyrepo/PayloadsAllTheThings 'Bypassing using DNS
 *   Rebinding (TOCTOU)': `make-1.2.3.4-rebind-169.254-169.254-rr.1u.ms`; neex/1u.ms README];
 * - nip.io names with `.` and `-` mixed (`127-0.0.1.nip.io`): nip.io's backend rules (its
 *   backend.py) in Python judge generated names [exentriquesolutions/nip.io; dergigi/ants#182;
 *   BaseIntelligence/bounty-challenge#4813];
 * - this machine under its own names and addresses (its hosts file's names, its host name, its
 *   interfaces' addresses; container runtimes' `host.docker.internal`): getent and curl reaching the
 *   listener judge, the runtimes' documentation for the container names [scidsg/hushline#1089;
 *   google-gemini/gemini-cli#27744; nss-myhostname(8); av1155/houndarr#387; openclaw/openclaw#79850;
 *   langchain-ai/langchain#36768];
 * - the metadata service under two more names [swisskyrepo/PayloadsAllTheThings 'SSRF URL for Cloud
 *   Instances': Packetcloud `metadata.packet.net`, Rancher `rancher-metadata`] (documented; no DNS);
 * - paths: a deny that names a directory holds for everything in it, as a .gitignore pattern does,
 *   and never for a sibling that only shares its prefix (`secrets_evil`): `git check-ignore` judges
 *   [Claude Code's Read/Edit rules are gitignore patterns (docs/policy.md); openclaw/openclaw#109233
 *   (a deny on a directory bypassed by how the glob reads it); Blockether/vis#263 ('a rule that names
 *   a directory closes its whole subtree'); anthropics/claude-code#35118 (`Read(/tmp/)` and the files
 *   in it); CVE-2025-54794 (Claude Code: `/dir` vs `/dir_evil` prefix confusion)].
 * A deny case must be denied by the deny-list policy (denies, then allow everything else) and never
 * allowed by the allow-list one; each URL case is decided as a WebFetch url and inside the Bash
 * lines of the fetchers the guard reads.
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { hostname, networkInterfaces, tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { REQUIRE_ORACLES } from "./helpers/bash-oracle.js";
import { ORACLE_SEED } from "./helpers/oracle.js";

const HAS = (program: string, ...args: string[]) => spawnSync(program, args.length > 0 ? args : ["--version"], { stdio: "ignore" }).status === 0;
const PYTHON = HAS("python3", "-c", "import ipaddress");
const GIT = HAS("git");

/** The fetchers the guard reads in Bash lines, and how each is run against the listener (loopback only, no proxy, short timeouts). */
const FETCHERS: Readonly<Record<string, (url: string, dir: string) => string[]>> = {
  curl: (url) => ["curl", "-s", "-g", "--noproxy", "*", "--max-time", "3", url],
  wget: (url) => ["wget", "-q", "-O", "/dev/null", "-t", "1", "-T", "3", "--no-proxy", url],
  wget2: (url) => ["wget2", "-q", "-O", "/dev/null", "-t", "1", "-T", "3", "--no-proxy", url],
  http: (url) => ["http", "--ignore-stdin", "--timeout", "3", url],
  aria2c: (url, dir) => ["aria2c", "-q", "-d", dir, "--allow-overwrite=true", "--max-tries=1", "--timeout=3", "--connect-timeout=3", url],
};
const INSTALLED = Object.keys(FETCHERS).filter((program) => HAS(program));

const policyText = (hosts: readonly string[], rest: string) => `version: 1
permissions:
${hosts.map((host) => `  - { rule: "WebFetch(domain:${host})", mode: deny }`).join("\n")}
${Object.keys(FETCHERS).flatMap((program) => ["127.0.0.1", "169.254.169.254"].map((host) => `  - { rule: "Bash(${program} *${host}*)", mode: deny }`)).join("\n")}
${rest}`;
const allowRest = Object.keys(FETCHERS).map((program) => `  - { rule: "Bash(${program}:*)", mode: allow }`).join("\n");
const apiRest = `  - { tool: WebFetch, where: { url: { url: "https://api.example.com/v1/**" } }, mode: allow }
${["curl", "wget"].map((program) => `  - { rule: "Bash(${program} https://api.example.com/v1/*)", mode: allow }`).join("\n")}
`;

const DENIES = ["localhost", "127.0.0.1", "169.254.169.254", "10.*", "192.168.*"];
/** Deny list: the denies, then everything else allowed (the policy a bypass gets through). */
const denyList = permissionPolicy(parsePolicy(policyText(DENIES, `  - { tool: WebFetch, mode: allow }\n${allowRest}\n`), "yaml", "deny-list.yaml"));
/** Allow list: only api.example.com's /v1/ API. */
const allowList = permissionPolicy(parsePolicy(policyText(DENIES, apiRest), "yaml", "allow-list.yaml"));
/** The deny list as IPv4-minded filters write it: the loopback and unspecified IPv4 addresses, the metadata address. */
const V4_DENIES = ["127.0.0.1", "0.0.0.0", "169.254.169.254"];
const denyListV4 = permissionPolicy(parsePolicy(policyText(V4_DENIES, `  - { tool: WebFetch, mode: allow }\n${allowRest}\n`), "yaml", "deny-list-v4.yaml"));
const allowListV4 = permissionPolicy(parsePolicy(policyText(V4_DENIES, apiRest), "yaml", "allow-list-v4.yaml"));

const quote = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;

/** The URL must be denied as a WebFetch url and in each fetcher's Bash line, and never allowed by the allow list. */
function expectDenied(url: string, why: string, deny = denyList, allow = allowList): void {
  const decision = deny.decide("WebFetch", { url });
  expect(decision.mode, `WebFetch ${url} [${why}]: ${decision.reason ?? ""}`).toBe("deny");
  expect(allow.decide("WebFetch", { url }).mode, `WebFetch ${url} (allow list)`).not.toBe("allow");
  for (const program of Object.keys(FETCHERS)) {
    const command = `${program} ${quote(url)}`;
    const line = deny.decide("Bash", { command });
    expect(line.mode, `${command} [${why}]: ${line.reason ?? ""}`).toBe("deny");
    expect(allow.decide("Bash", { command }).mode, `${command} (allow list)`).not.toBe("allow");
  }
}

// ---- a listener as Node's server.listen(port) makes it: the unspecified address, both families ----

let listener: Server | undefined;
let port = 0;
const hits: string[] = [];
const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-net-path-4-")));
beforeAll(async () => {
  listener = createServer((socket) => {
    hits.push(socket.localAddress ?? "?");
    socket.end("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok");
  });
  await new Promise<void>((resolve) => listener!.listen(0, resolve));
  port = (listener.address() as { port: number }).port;
});
afterAll(() => {
  listener?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** Runs a fetcher on the URL; resolves to the local addresses of the connections the listener saw. */
function reached(program: string, url: string): Promise<string[]> {
  hits.length = 0;
  const [file, ...args] = FETCHERS[program]!(url, scratch);
  return new Promise((resolve) => {
    execFile(file!, args, { timeout: 8000, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: scratch } }, () => setTimeout(() => resolve([...hits]), 50));
  });
}

/** Python's ipaddress on host literals: [is_loopback, is_unspecified] each, or null when it is no address. */
function pythonPlaces(hosts: readonly string[]): ([boolean, boolean] | null)[] | undefined {
  const script = `import ipaddress, json, sys
out = []
for h in json.load(sys.stdin):
    try:
        ip = ipaddress.ip_address(h)
        out.append([ip.is_loopback, ip.is_unspecified])
    except ValueError:
        out.append(None)
print(json.dumps(out))`;
  const run = spawnSync("python3", ["-c", script], { input: JSON.stringify(hosts), encoding: "utf8" });
  return run.status === 0 ? (JSON.parse(run.stdout) as ([boolean, boolean] | null)[]) : undefined;
}

/** Spellings of an IPv6 address's 8 groups: each group with or without leading zeros, upper or lower case, one run of zeros compressed or not. */
const ipv6Spelling = (groups: readonly number[]) =>
  fc.record({ pad: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 8, maxLength: 8 }), upper: fc.boolean(), from: fc.integer({ min: 0, max: 8 }), length: fc.integer({ min: 0, max: 8 }) }).map(({ pad, upper, from, length }) => {
    const spelled = groups.map((group, i) => group.toString(16).padStart(pad[i]! + 1, "0"));
    const text = (parts: string[]) => (upper ? parts.join(":").toUpperCase() : parts.join(":"));
    const end = Math.min(8, from + length);
    if (end - from < 2 || groups.slice(from, end).some((group) => group !== 0)) return text(spelled);
    return `${text(spelled.slice(0, from))}::${text(spelled.slice(end))}`;
  });

describe("public SSRF-filter bypasses (round 4)", () => {
  describe("the IPv6 loopback and unspecified addresses are this machine, as 127.0.0.1 is [PayloadsAllTheThings 'Bypass localhost with [::]' and PR #650; coreruleset/coreruleset#3219 and #4427; n24q02m/better-telegram-mcp#901; NeySlim/ultimate-ca-manager#182; CVE-2024-29415 (indutny/node-ip#165)]", () => {
    const cases = ["http://[::1]:P/", "http://[::]:P/", "http://[0::1]:P/admin", "http://[0:0::1]:P/", "http://[000:0:0000::01]:P/", "http://[0000:0000:0000:0000:0000:0000:0000:0001]:P/", "http://[::0]:P/", "http://[0:0:0:0:0:0:0:0]:P/"];
    it.each(cases)("%s reaches a server listening as Node's does, through every fetcher, and is denied where 127.0.0.1 is", async (spelled) => {
      const url = spelled.replace("P", String(port));
      for (const program of REQUIRE_ORACLES ? Object.keys(FETCHERS) : INSTALLED) {
        expect((await reached(program, url)).length, `${program} ${url} reaches the listener`).toBeGreaterThan(0);
      }
      expectDenied(url, "a fetcher reaches the loopback listener", denyListV4, allowListV4);
    }, 120_000);

    it("generated spellings of ::1 and :: (Python's ipaddress: loopback or unspecified) are denied where 127.0.0.1 and 0.0.0.0 are; curl reaches a sample", async () => {
      const samples = fc.sample(fc.oneof(ipv6Spelling([0, 0, 0, 0, 0, 0, 0, 1]), ipv6Spelling([0, 0, 0, 0, 0, 0, 0, 0])), { numRuns: 200, seed: ORACLE_SEED });
      const judged = PYTHON || REQUIRE_ORACLES ? pythonPlaces(samples) : undefined;
      if (PYTHON || REQUIRE_ORACLES) expect(judged).toBeDefined();
      for (const [i, spelling] of samples.entries()) {
        const place = judged?.[i];
        if (judged !== undefined) expect(place?.[0] === true || place?.[1] === true, spelling).toBe(true);
        const decision = denyListV4.decide("WebFetch", { url: `http://[${spelling}]:${port}/` });
        expect(decision.mode, `[${spelling}]: ${decision.reason ?? ""}`).toBe("deny");
        expect(denyListV4.decide("Bash", { command: `curl 'http://[${spelling}]:${port}/'` }).mode, spelling).toBe("deny");
      }
      if (INSTALLED.includes("curl") || REQUIRE_ORACLES) for (const spelling of samples.slice(0, 5)) expect((await reached("curl", `http://[${spelling}]:${port}/`)).length, spelling).toBeGreaterThan(0);
    }, 120_000);

    it("other IPv6 addresses stay allowed, and an allow of the IPv4 loopback is not widened to them", () => {
      for (const url of ["http://[2001:db8::1]/", "http://[::2]/", "https://[2606:4700:4700::1111]/"]) expect(denyListV4.decide("WebFetch", { url }).mode, url).toBe("allow");
      const local = permissionPolicy(parsePolicy(`version: 1\npermissions:\n  - { rule: "WebFetch(domain:127.0.0.1)", mode: allow }\n`, "yaml", "local.yaml"));
      expect(local.decide("WebFetch", { url: "http://[::1]/" }).mode).not.toBe("allow");
      expect(local.decide("WebFetch", { url: "http://[::]/" }).mode).not.toBe("allow");
    });
  });

  describe("1u.ms names are read as its server reads them [PayloadsAllTheThings 'Bypassing using DNS Rebinding (TOCTOU)'; neex/1u.ms README and processors.go]", () => {
    /** neex/1u.ms processors.go, in Python: the A/AAAA answers for a name (first the `make-` part, then the `rebind-` part), names for CNAMEs. */
    function oneUms(names: readonly string[]): string[][] | undefined {
      const script = `import ipaddress, json, re, sys
def addr(a):
    if a.endswith("-"): a = a[:-1]
    if a.startswith("cname-"): return a[6:].rstrip(".")
    ip = a.lower()
    if ip.startswith("ip-"):
        ip = ip[3:].replace("o", ".").replace("c", ":")
    else:
        for sep in (".", ":"):
            try:
                ipaddress.ip_address(ip.replace("-", sep)); ip = ip.replace("-", sep); break
            except ValueError: pass
    if ip.startswith("v6-"): ip = ip[3:]
    try:
        p = ipaddress.ip_address(ip)
        return str(p.ipv4_mapped or p) if p.version == 6 and p.ipv4_mapped else str(p)
    except ValueError: pass
    if a.startswith("hex-"):
        try: return str(ipaddress.ip_address(bytes.fromhex(a[4:]).decode("latin1")))
        except ValueError: return None
    return a if "." in a else None
out = []
for name in json.load(sys.stdin):
    answers = []
    for rx in (r".*make-(.*?)(rr|rebind).*", r".*rebind-(.*?)rr.*"):
        m = re.match(rx, name)
        if m:
            answers += [x for x in (addr(p) for p in m.group(1).split("-and-")) if x]
    out.append(answers)
print(json.dumps(out))`;
      const run = spawnSync("python3", ["-c", script], { input: JSON.stringify(names), encoding: "utf8" });
      return run.status === 0 ? (JSON.parse(run.stdout) as string[][]) : undefined;
    }

    const DENIED = ["127.0.0.1", "169.254.169.254", "10.1.2.3", "192.168.0.1", "::1"];
    const named = [
      ["make-1.2.3.4-rebind-169.254-169.254-rr.1u.ms", "169.254.169.254"],
      ["prefix-make-1.2.3.4-rebind-169.254-169.254-rr-suffix.1u.ms", "169.254.169.254"],
      ["make-169-254.169.254-rr.1u.ms", "169.254.169.254"],
      ["make-ip-127o0o0o1-rr.1u.ms", "127.0.0.1"],
      ["make-hex-3132372e302e302e31-rr.1u.ms", "127.0.0.1"],
      ["make-hex-3136392e3235342e3136392e323534-rr.1u.ms", "169.254.169.254"],
      ["a.prefix-make-ip-v6-cc1-rr-and.a-suffix.1u.ms", "::1"],
      ["make-1-2-3-4-and-169.254-169.254-rr.1u.ms", "169.254.169.254"],
      ["make-cname-localtest.me-rr.1u.ms", "localtest.me"],
      ["make-8.8.8.8-rebind-cname-a9fea9fe.nip.io-rr.1u.ms", "a9fea9fe.nip.io"],
    ] as const;

    it.each(named)("%s answers %s and is denied", (name, answer) => {
      const judged = PYTHON || REQUIRE_ORACLES ? oneUms([name]) : undefined;
      if (judged !== undefined) expect(judged[0], name).toContain(answer);
      expectDenied(`http://${name}/latest/meta-data/`, `1u.ms answers ${answer}`);
    });

    it("generated names in every form the server reads (mixed separators, ip-, hex-, -and- lists, rebind) are denied when an answer is", () => {
      const part = fc.tuple(fc.constantFrom(...DENIED.slice(0, 4)), fc.constantFrom("dots", "mixed", "ip-", "hex-")).map(([address, form]) => {
        if (form === "hex-") return { address, text: `hex-${[...address].map((ch) => ch.charCodeAt(0).toString(16)).join("")}` };
        if (form === "ip-") return { address, text: `ip-${address.replace(/\./g, "o")}` };
        if (form === "mixed") return { address, text: address.split(".").map((octet, i) => (i === 0 ? octet : `${i % 2 === 0 ? "-" : "."}${octet}`)).join("") };
        return { address, text: address };
      });
      const samples = fc.sample(fc.tuple(part, fc.constantFrom("make", "rebind", "and"), fc.constantFrom("", "x.", "a-b.prefix-"), fc.constantFrom("", "-suffix", "-and.z")), { numRuns: 200, seed: ORACLE_SEED });
      const names = samples.map(([p, shape, prefix, suffix]) => (shape === "make" ? `${prefix}make-${p.text}-rr${suffix}.1u.ms` : shape === "rebind" ? `${prefix}make-8.8.8.8-rebind-${p.text}-rr${suffix}.1u.ms` : `${prefix}make-8-8-8-8-and-${p.text}-rr${suffix}.1u.ms`));
      const judged = PYTHON || REQUIRE_ORACLES ? oneUms(names) : undefined;
      if (PYTHON || REQUIRE_ORACLES) expect(judged).toBeDefined();
      samples.forEach(([p], i) => {
        if (judged !== undefined) expect(judged[i], names[i]).toContain(p.address);
        const url = `http://${names[i]!}/`;
        expect(denyList.decide("WebFetch", { url }).mode, `${url} answers ${p.address}`).toBe("deny");
        // The Bash denies name the loopback and metadata addresses only.
        if (!/^1[09]/.test(p.address)) expect(denyList.decide("Bash", { command: `curl ${url}` }).mode, url).toBe("deny");
        expect(allowList.decide("WebFetch", { url }).mode, url).not.toBe("allow");
      });
    });

    it("1u.ms names that answer public addresses only stay allowed", () => {
      const names = ["make-8.8.8.8-rr.1u.ms", "make-hex-382e382e382e38-rr.1u.ms", "make-ip-1o1o1o1-rr.1u.ms", "make-8-8-8-8-and-1.1-1.1-rr.1u.ms", "1u.ms"];
      const judged = PYTHON ? oneUms(names) : undefined;
      names.forEach((name, i) => {
        if (judged !== undefined) expect(judged[i]!.every((answer) => !DENIED.includes(answer)), name).toBe(true);
        expect(denyList.decide("WebFetch", { url: `http://${name}/` }).mode, name).toBe("allow");
      });
    });
  });

  describe("nip.io names are read as its server reads them: the last four parts, split at `.` and `-` alike [exentriquesolutions/nip.io nipio/backend.py (handle_subdomains, _split_subdomain); dergigi/ants#182 and BaseIntelligence/bounty-challenge#4813 (nip.io names past SSRF filters)]", () => {
    /** nip.io's backend, in Python: the A record for a name, or null. */
    function nipIo(names: readonly string[]): (string | null)[] | undefined {
      const script = `import ipaddress, json, re, sys
def answer(q):
    sub = q[0:q.find("nip.io") - 1]
    m = re.search("(?:^|.*[.-])([0-9A-Fa-f]{8})$", sub)
    parts = [str(int(m.group(1)[j:j + 2], 16)) for j in (0, 2, 4, 6)] if m else re.split("[.-]", sub)
    if len(parts) < 4: return None
    if any(re.match(r"^\\d{1,3}$", p) is None or int(p) > 255 for p in parts[-4:]): return None
    return str(ipaddress.ip_address(".".join(str(int(p)) for p in parts[-4:])))
print(json.dumps([answer(n) for n in json.load(sys.stdin)]))`;
      const run = spawnSync("python3", ["-c", script], { input: JSON.stringify(names), encoding: "utf8" });
      return run.status === 0 ? (JSON.parse(run.stdout) as (string | null)[]) : undefined;
    }

    it("generated names with `.` and `-` mixed are denied when they answer a denied address; public ones stay allowed", () => {
      const samples = fc.sample(
        fc.tuple(fc.constantFrom("127.0.0.1", "127.3.2.1", "169.254.169.254", "10.0.3.4", "192.168.1.20", "8.8.8.8"), fc.array(fc.constantFrom(".", "-"), { minLength: 3, maxLength: 3 }), fc.constantFrom("", "app-", "a.b.", "x-y.")),
        { numRuns: 150, seed: ORACLE_SEED },
      ).filter(([, seps]) => new Set(seps).size === 2);
      const names = samples.map(([address, seps, prefix]) => `${prefix}${address.split(".").map((octet, i) => (i === 0 ? octet : `${seps[i - 1]!}${octet}`)).join("")}.nip.io`);
      const judged = PYTHON || REQUIRE_ORACLES ? nipIo(names) : undefined;
      if (PYTHON || REQUIRE_ORACLES) expect(judged).toBeDefined();
      expect(samples.length).toBeGreaterThan(50);
      samples.forEach(([address], i) => {
        if (judged !== undefined) expect(judged[i], names[i]).toBe(address);
        const url = `http://${names[i]!}/`;
        if (address === "8.8.8.8") expect(denyList.decide("WebFetch", { url }).mode, url).toBe("allow");
        else {
          expect(denyList.decide("WebFetch", { url }).mode, `${url} answers ${address}`).toBe("deny");
          expect(allowList.decide("WebFetch", { url }).mode, url).not.toBe("allow");
          if (/^1[26]/.test(address)) expect(denyList.decide("Bash", { command: `curl ${url}` }).mode, url).toBe("deny");
        }
      });
    });

    it.each([["127-0.0.1.nip.io", "127.0.0.1"], ["app-169.254-169.254.nip.io", "169.254.169.254"], ["customer1.app.127.0-0.1.nip.io", "127.0.0.1"]])("%s answers %s and is denied", (name, address) => {
      const judged = PYTHON || REQUIRE_ORACLES ? nipIo([name]) : undefined;
      if (judged !== undefined) expect(judged[0], name).toBe(address);
      expectDenied(`http://${name}/`, `nip.io answers ${address}`);
    });
  });

  describe("this machine under its own names and addresses: its hosts file's names, its host name, its interfaces' addresses [scidsg/hushline#1089 (names a container's /etc/hosts maps to this machine); google-gemini/gemini-cli#27744 (web-fetch: a host name that resolves to a private address passed the literal checks); nss-myhostname(8) (the host name resolves to every local address)]", () => {
    /** getaddrinfo's answer for a name (getent hosts), or undefined. */
    const resolved = (name: string) => spawnSync("getent", ["hosts", name], { encoding: "utf8" }).stdout?.trim().split(/\s+/)[0];
    const KNOWN = new Set(["localhost", "localhost.localdomain", "localhost4", "localhost4.localdomain4", "localhost6", "localhost6.localdomain6", "ip6-localhost", "ip6-loopback"]);
    let hostsText = "";
    try {
      hostsText = readFileSync("/etc/hosts", "utf8");
    } catch {
      // no hosts file: the host name and the interfaces' addresses are the cases
    }
    const names = [...new Set([hostname().toLowerCase(), ...hostsText.split("\n").flatMap((line) => line.replace(/#.*/, "").trim().split(/\s+/).slice(1).map((name) => name.toLowerCase()))])].filter((name) => name !== "" && !KNOWN.has(name));
    const addresses = Object.values(networkInterfaces())
      .flatMap((entries) => entries ?? [])
      .filter((entry) => !entry.internal && !entry.address.startsWith("fe80"))
      .map((entry) => (entry.family === "IPv6" ? `[${entry.address}]` : entry.address));
    const hosts = [...names, ...addresses];

    it.each(hosts)("%s reaches a server listening on all addresses here (getent, curl) and is denied where localhost is", async (host) => {
      const name = !host.startsWith("[") && !/^\d+\.\d+\.\d+\.\d+$/.test(host);
      if (name && resolved(host) === undefined) return; // the resolver does not know it: nothing to reach
      const url = `http://${host}:${port}/`;
      if (INSTALLED.includes("curl") || REQUIRE_ORACLES) expect((await reached("curl", url)).length, `curl ${url} reaches the listener`).toBeGreaterThan(0);
      expectDenied(url, name ? `getaddrinfo: ${resolved(host) ?? "?"}` : "an address of this machine");
    }, 60_000);

    it.each(["http://host.docker.internal:11434/api/tags", "http://HOST.CONTAINERS.INTERNAL./", "http://gateway.docker.internal/", "http://host.lima.internal:8080/"])(
      "%s: the name a container runtime gives the machine running it is this machine too [Docker Desktop and Podman networking docs; av1155/houndarr#387 and openclaw/openclaw#79850 (host.docker.internal reaches the host's services); langchain-ai/langchain#36768 (review: block host.docker.internal with the localhost names)] (documented: no container here)",
      (url) => expectDenied(url, "documented container host name"),
    );

    it("a name this machine does not know stays allowed", () => {
      for (const url of ["http://example.org/", "http://vm.example.org/", "http://host.docker.internal.example.org/", "https://api.example.com/v1/x"]) expect(denyList.decide("WebFetch", { url }).mode, url).toBe("allow");
    });
  });

  describe("the metadata service under more names [PayloadsAllTheThings 'SSRF URL for Cloud Instances': Packetcloud, Rancher]", () => {
    it.each(["http://metadata.packet.net/userdata", "http://METADATA.PACKET.NET./metadata", "http://rancher-metadata/latest/self/container", "http://rancher-metadata./2015-12-19/self"])("%s is denied with 169.254.169.254", (url) => {
      expectDenied(url, "documented metadata name");
    });
  });
});

// ---- paths ----

const ws = path.join(scratch, "ws");
for (const file of ["secrets/key", "a/secrets/b/key", "creds/x", "a/creds/x", "conf.d/a", "deep/dir/f", "secrets_evil/key", "creds.bak/x", "docs/a.md"]) {
  mkdirSync(path.dirname(path.join(ws, file)), { recursive: true });
  writeFileSync(path.join(ws, file), "MARK");
}

/** Each deny as a Read rule and as the .gitignore line git reads the same way. */
const DIR_DENIES = [
  ["secrets", "secrets"],
  ["./creds", "/creds"],
  ["*.d", "*.d"],
  ["deep/dir", "deep/dir"],
] as const;
const dirGuard = (base: string, followSymlinks: boolean) =>
  permissionPolicy(
    parsePolicy(
      `version: 1\npathBase: ${base}\nfollowSymlinks: ${String(followSymlinks)}\npermissions:\n${DIR_DENIES.map(([rule]) => `  - { rule: ${JSON.stringify(`Read(${rule})`)}, mode: deny }`).join("\n")}\n  - { rule: "Read(./**)", mode: allow }\n`,
      "yaml",
      "dir-denies.yaml",
    ),
  );

/** git check-ignore in a repository at the workspace with those lines: is the path ignored? */
function gitIgnores(relative: string): boolean {
  return spawnSync("git", ["check-ignore", "-q", "--no-index", "--", relative], { cwd: ws }).status === 0;
}

describe("public path escapes (round 4)", () => {
  beforeAll(() => {
    if (!GIT) return;
    spawnSync("git", ["init", "-q"], { cwd: ws });
    writeFileSync(path.join(ws, ".gitignore"), `${DIR_DENIES.map(([, line]) => line).join("\n")}\n`);
  });

  const denied = ["secrets/key", "a/secrets/b/key", "creds/x", "conf.d/a", "deep/dir/f", "./secrets/../creds/x", "docs/../secrets/key"];
  it.each(denied)("%s: a deny naming a directory holds for what is in it (git check-ignore) [openclaw/openclaw#109233; Blockether/vis#263; anthropics/claude-code#35118]", (value) => {
    if (GIT || REQUIRE_ORACLES) expect(gitIgnores(path.posix.normalize(value)), `git check-ignore ${value}`).toBe(true);
    for (const guard of [dirGuard(ws, false), dirGuard(ws, true)]) {
      for (const spelled of [value, path.join(ws, value)]) expect(guard.decide("Read", { file_path: spelled }).mode, spelled).toBe("deny");
    }
  });

  it.each(["secrets_evil/key", "creds.bak/x", "a/creds/x", "docs/a.md"])("%s: a sibling that shares a denied name's prefix, or an anchored name elsewhere, stays allowed (git keeps it) [CVE-2025-54794]", (value) => {
    if (GIT || REQUIRE_ORACLES) expect(gitIgnores(value), `git check-ignore ${value}`).toBe(false);
    expect(dirGuard(ws, true).decide("Read", { file_path: value }).mode, value).toBe("allow");
    expect(dirGuard(ws, false).decide("Read", { file_path: path.join(ws, value) }).mode, value).toBe("allow");
  });
});
