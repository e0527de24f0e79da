/**
 * Public SSRF-filter and path-escape reports not covered by the earlier rounds, round 5, each class judged by the
 * real thing this machine has:
 * - DNS rebinding services whose names spell their answers anywhere in the name, not just before the service's
 *   domain: whonow (`A.52.23.194.42.1time.192.168.1.1.forever.<uuid>.rebind.network`: an `A` label, then each
 *   address as four labels followed by its rule) and Singularity of Origin (`s-<first>-<second>-<session>-<strategy>-e.
 *   d.rebind.it`: the address answered first, then the target); the services' own rules re-implemented in Python with
 *   `ipaddress` judging each answer, over generated names, under the public domains and others (both servers answer
 *   for any domain they are delegated) [brannondorsey/whonow README ('Anatomy of a whonow request'); nccgroup/singularity
 *   README and wiki ('How to Create Manual DNS Requests to Singularity'), nccgroup/singularity#36 (rebinding past
 *   IP filters); y-mehta/ssrf-req-filter test/blockUrls.txt (`A.127.0.0.1.1time.10.0.0.1.1time.repeat.<uuid>.
 *   rebind.network`); swisskyrepo/PayloadsAllTheThings 'DNS Rebinding' (Singularity, rebind.it)];
 * - cloud instance names that spell a private address, which the provider's resolver answers with it: AWS EC2's
 *   IP-based host names (`ip-10-0-0-5.ec2.internal`, `ip-10-0-0-5.eu-west-1.compute.internal`), judged by AWS's
 *   documented format (Amazon EC2 User Guide, 'Amazon EC2 instance hostname types') in Python;
 * - public names that resolve to the loopback address: `localh.st`, `spoofed.burpcollaborator.net` and the
 *   `spoofed.` name of any Burp Collaborator domain (`spoofed.<id>.oastify.com`), as their documentation and the
 *   block lists name them (no DNS is reached here) [felippe-regazio/ssrfcheck#4 (`spoofed.burpcollaborator.net`
 *   past the filter); swisskyrepo/PayloadsAllTheThings 'Bypass using a domain redirection'; PortSwigger Web Security
 *   Academy, 'SSRF with blacklist-based input filter'; y-mehta/ssrf-req-filter test/blockUrls.txt];
 * - paths: a file with several names (a hard link) read through a name in an allowed place: the kernel (`stat -L`,
 *   device and inode; `cat` prints the denied file's marker) judges generated links in the workspace, spelled
 *   absolute, relative, with `./` and `..`, for the Read and Edit tools [landstrip/landstrip#90 ('denyRead bypass
 *   via hard link': `ln ~/.ssh/known_hosts ~/link.txt; cat ~/link.txt`); multikernel/sandlock#179 (an fs_deny'd file
 *   read through a hard link); bindsch/scode#2 (pre-existing hard links are followed)];
 * - paths: a deny that names a place through a symlink (macOS's `/tmp`, `/var` and `/etc` lead to `/private/...`; a home
 *   or a project directory reached through a link) holds for the place's real name too: `realpath` and the kernel
 *   (`cat` prints the marker) judge generated spellings of the real path, for the Read tool and for `cat` in Bash
 *   [modelcontextprotocol/servers#3253 (macOS `/tmp` is `/private/tmp`: rules and paths compared in different forms);
 *   ArcReel/ArcReel#622 (deny lists that name the raw form and not the resolved one, `/var` and `/private/var`)].
 * - programs that connect to a host named without a URL (netcat, telnet, socat, ssh, scp, openssl s_client, redis-cli,
 *   psql, mysql): getaddrinfo reads the host as inet_aton does, so `nc 0x7f.1 80`, `socat - TCP:2130706433:80` and
 *   `ssh -p P 0177.1` reach 127.0.0.1 past a deny that names it; each real program connecting to a listener on this
 *   machine's loopback judges generated spellings [swisskyrepo/PayloadsAllTheThings 'Bypass Using an Encoded IP
 *   Address' and 'Bypass Using Rare Address'; nccgroup/singularity#36 ('weird IP formatting' past filters);
 *   bug-ops/zeph#6497 (a network deny that reads curl and wget only, bypassed by `openssl s_client`, `socat`, `ssh`,
 *   `scp`, `rsync`, bash's `/dev/tcp`); FerroxLabs/wayland#673 (`scp`/`rsync` to a remote host); the programs'
 *   manuals for where the host stands]; and bash itself, which connects for a redirection to `/dev/tcp/HOST/PORT`
 *   (`cat </dev/tcp/0x7f.1/80`), judged by bash reaching the listener, under a deny that names the address and a
 *   Bash tool otherwise allowed.
 * - redirect services that send the client to the URL a query parameter names (httpbin's and Postman Echo's
 *   `/redirect-to?url=`, r3dir's `/--to/?url=`): curl following the redirect (`-L`) of a server that answers as
 *   their documentation says reaches the loopback listener; a URL to one of them is read as the URL it carries, and a
 *   URL another server may redirect to (`?next=http://127.0.0.1/`) makes a deny that names it ask
 *   [swisskyrepo/PayloadsAllTheThings 'Bypassing Using a Redirect' (Horlad/r3dir: `https://307.r3dir.me/--to/?url=
 *   http://localhost`); postmanlabs/httpbin `/redirect-to`; everruns/bashkit#1176 (a host allowlist bypassed by where
 *   the request really goes)].
 * A deny case must be denied by the deny-list policy (denies, then allow everything else) and never allowed by the
 * allow-list one; a URL case is decided as a WebFetch url and in curl's and wget's Bash lines. Names that spell no
 * denied address stay allowed.
 */
import { execFile, spawnSync } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { REQUIRE_ORACLES } from "./helpers/bash-oracle.js";
import { ORACLE_SEED } from "./helpers/oracle.js";

const PYTHON = spawnSync("python3", ["-c", "import ipaddress"], { stdio: "ignore" }).status === 0;
const COREUTILS = spawnSync("stat", ["--version"], { stdio: "ignore" }).status === 0;

// ---- URLs ----

const FETCHERS = ["curl", "wget"] as const;
const DENIES = ["localhost", "127.0.0.1", "169.254.169.254", "10.*", "192.168.*"];
const policyText = (rest: string) => `version: 1
permissions:
${DENIES.map((host) => `  - { rule: "WebFetch(domain:${host})", mode: deny }`).join("\n")}
${FETCHERS.flatMap((program) => ["127.0.0.1", "169.254.169.254", "10.*", "192.168.*"].map((host) => `  - { rule: "Bash(${program} *${host}*)", mode: deny }`)).join("\n")}
${rest}`;
/** Deny list: the denies, then everything else allowed (the policy a bypass gets through). */
const denyList = permissionPolicy(parsePolicy(policyText(`  - { tool: WebFetch, mode: allow }\n${FETCHERS.map((program) => `  - { rule: "Bash(${program}:*)", mode: allow }`).join("\n")}\n`), "yaml", "deny-list.yaml"));
/** Allow list: only api.example.com's /v1/ API. */
const allowList = permissionPolicy(
  parsePolicy(policyText(`  - { tool: WebFetch, where: { url: { url: "https://api.example.com/v1/**" } }, mode: allow }\n${FETCHERS.map((program) => `  - { rule: "Bash(${program} https://api.example.com/v1/*)", mode: allow }`).join("\n")}\n`), "yaml", "allow-list.yaml"),
);

const quote = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;
const lines = (url: string) => FETCHERS.map((program) => `${program} ${quote(url)}`);

/** The URL is denied as a WebFetch url and in each fetcher's Bash line, and never allowed by the allow list. */
function expectDenied(url: string, why: string): void {
  const decision = denyList.decide("WebFetch", { url });
  expect(decision.mode, `WebFetch ${url} [${why}]: ${decision.reason ?? ""}`).toBe("deny");
  expect(allowList.decide("WebFetch", { url }).mode, `WebFetch ${url} (allow list)`).not.toBe("allow");
  for (const command of lines(url)) {
    const line = denyList.decide("Bash", { command });
    expect(line.mode, `${command} [${why}]: ${line.reason ?? ""}`).toBe("deny");
    expect(allowList.decide("Bash", { command }).mode, `${command} (allow list)`).not.toBe("allow");
  }
}

/** A name that spells no denied address reaches no denied place: it stays allowed (no deny is widened past its addresses). */
function expectAllowed(url: string): void {
  const decision = denyList.decide("WebFetch", { url });
  expect(decision.mode, `WebFetch ${url}: ${decision.reason ?? ""}`).toBe("allow");
}

/** Python: the answers a rebinding service gives for each name (its rules, `ipaddress` reading each address), and whether any is a denied place. */
const PY_DENIED = `import ipaddress, json, re, sys
DENIED = [ipaddress.ip_network(n) for n in ("127.0.0.0/8", "10.0.0.0/8", "192.168.0.0/16", "169.254.169.254/32", "0.0.0.0/32")]
def denied(a):
    ip = ipaddress.ip_address(a)
    return any(ip in n for n in DENIED)
def v4(text):
    try:
        return str(ipaddress.IPv4Address(text))
    except ValueError:
        return None
`;

function pythonAnswers(body: string, names: readonly string[]): { answers: string[]; denied: boolean }[] | undefined {
  const script = `${PY_DENIED}${body}
out = []
for name in json.load(sys.stdin):
    answers = answers_of(name.lower())
    out.append({"answers": answers, "denied": any(denied(a) for a in answers)})
print(json.dumps(out))`;
  const run = spawnSync("python3", ["-c", script], { input: JSON.stringify(names), encoding: "utf8" });
  if (run.status !== 0) throw new Error(`python3: ${run.stderr}`);
  return JSON.parse(run.stdout) as { answers: string[]; denied: boolean }[];
}

/** brannondorsey/whonow: `A.<ip>.<rule>[.<ip>.<rule>...][.<uuid>].<domain>`, each ip four labels, each rule `Ntime(s)`, `forever` or `repeat`. */
const WHONOW = `def answers_of(name):
    labels = name.split(".")
    if not labels or labels[0] != "a":
        return []
    out, i = [], 1
    while i + 4 < len(labels):
        ip = v4(".".join(labels[i:i + 4]))
        rule = labels[i + 4]
        if ip is None or not (re.fullmatch(r"\\d+times?", rule) or rule in ("forever", "repeat")):
            break
        out.append(ip)
        i += 5
        if i < len(labels) and labels[i] == "repeat":
            i += 1
    return out`;

/** nccgroup/singularity: `s-<first>-<second>-<session>-<strategy>-e.<domain>`: the part before `-e.` split at `-` into five. */
const SINGULARITY = `def answers_of(name):
    head = name.split("-e.", 1)
    if len(head) != 2:
        return []
    parts = head[0].split("-")
    if len(parts) != 5 or parts[0] != "s" or not parts[3].isdigit() or parts[4] not in ("fs", "ma", "rr", "rd"):
        return []
    return [ip for ip in (v4(parts[1]), v4(parts[2])) if ip is not None]`;

/** AWS EC2 IP-based names: `ip-<a>-<b>-<c>-<d>.ec2.internal` (us-east-1) and `ip-<a>-<b>-<c>-<d>.<region>.compute.internal`. */
const AWS = `def answers_of(name):
    m = re.fullmatch(r"ip-(\\d+)-(\\d+)-(\\d+)-(\\d+)\\.(?:ec2\\.internal|[a-z]{2}(?:-gov)?-[a-z]+-\\d\\.compute\\.internal)", name)
    ip = v4(".".join(m.groups())) if m else None
    return [ip] if ip else []`;

const octet = fc.integer({ min: 0, max: 255 });
/** An address a deny names (loopback, the metadata service, 10/8, 192.168/16), or a public one. */
const address = fc.oneof(
  fc.tuple(fc.constant(127), octet, octet, fc.integer({ min: 1, max: 254 })).map((parts) => parts.join(".")),
  fc.constant("169.254.169.254"),
  fc.tuple(fc.constant(10), octet, octet, octet).map((parts) => parts.join(".")),
  fc.tuple(fc.constant(192), fc.constant(168), octet, octet).map((parts) => parts.join(".")),
  fc.constantFrom("52.23.194.42", "35.185.206.165", "93.184.215.14", "8.8.8.8", "1.1.1.1"),
);
const uuid = fc.uuid();

const whonowName = fc
  .record({
    pairs: fc.array(fc.tuple(address, fc.oneof(fc.integer({ min: 1, max: 9 }).map((n) => (n === 1 ? "1time" : `${n}times`)), fc.constant("forever"))), { minLength: 1, maxLength: 3 }),
    repeat: fc.boolean(),
    id: fc.option(uuid, { nil: undefined }),
    domain: fc.constantFrom("rebind.network", "rebind.example.com", "dns.attacker.net"),
    upper: fc.boolean(),
  })
  .map(({ pairs, repeat, id, domain, upper }) => {
    const name = ["A", ...pairs.flatMap(([ip, rule]) => [ip, rule]), ...(repeat ? ["repeat"] : []), ...(id === undefined ? [] : [id]), domain].join(".");
    return upper ? name.toUpperCase() : name;
  });

const singularityName = fc
  .record({
    first: address,
    second: address,
    session: fc.integer({ min: 1, max: 4_294_967_295 }),
    strategy: fc.constantFrom("fs", "ma", "rr", "rd"),
    domain: fc.constantFrom("d.rebind.it", "dynamic.rebind.it", "dynamic.attacker.example"),
  })
  .map(({ first, second, session, strategy, domain }) => `s-${first}-${second}-${session}-${strategy}-e.${domain}`);

const REGIONS = ["us-west-2", "eu-west-1", "ap-southeast-2", "sa-east-1", "us-gov-west-1", "ca-central-1"];
const awsName = fc
  .record({ ip: fc.oneof(fc.tuple(fc.constant(10), octet, octet, octet), fc.tuple(fc.constant(192), fc.constant(168), octet, octet), fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), octet, octet)), region: fc.option(fc.constantFrom(...REGIONS), { nil: undefined }) })
  .map(({ ip, region }) => `ip-${ip.join("-")}.${region === undefined ? "ec2.internal" : `${region}.compute.internal`}`);

/** Generated names, each judged by the service's rules in Python: a name with a denied answer is denied; one with none stays allowed. */
function judgeNames(body: string, names: readonly string[], service: string): void {
  const judged = PYTHON || REQUIRE_ORACLES ? pythonAnswers(body, names) : undefined;
  let denied = 0;
  for (const [i, name] of names.entries()) {
    const place = judged?.[i];
    if (place === undefined) continue;
    if (place.answers.length === 0) throw new Error(`${service} answers nothing for ${name}: the generator and the judge disagree`);
    const url = `http://${name}/latest/meta-data/`;
    if (place.denied) {
      denied++;
      expectDenied(url, `${service} answers ${place.answers.join(", ")}`);
    } else expectAllowed(url);
  }
  if (judged !== undefined) expect(denied, `${service}: some generated names answer a denied address`).toBeGreaterThan(0);
}

describe("public SSRF-filter bypasses (round 5)", () => {
  it.skipIf(!PYTHON && !REQUIRE_ORACLES)("whonow names are read as its server reads them: every address after `A.`, wherever the name ends [brannondorsey/whonow README; y-mehta/ssrf-req-filter test/blockUrls.txt]", () => {
    const named = ["A.127.0.0.1.1time.10.0.0.1.1time.repeat.8f058b82-4c39-4dfe-91f7-9b07bcd7fbd5.rebind.network", "A.52.23.194.42.1time.192.168.1.1.forever.rebind.network", "A.52.23.194.42.1time.169.254.169.254.5times.repeat.a06a5856-1fff-4415-9aa2-823230b05826.rebind.network"];
    judgeNames(WHONOW, [...named, ...fc.sample(whonowName, { numRuns: 150, seed: ORACLE_SEED })], "whonow");
  });

  it.skipIf(!PYTHON && !REQUIRE_ORACLES)("Singularity of Origin names are read as its DNS server reads them: the first and the second address [nccgroup/singularity wiki; nccgroup/singularity#36; PayloadsAllTheThings 'DNS Rebinding']", () => {
    const named = ["s-35.185.206.165-127.0.0.1-3504134790-fs-e.d.rebind.it", "s-68.183.247.249-169.254.169.254-1244484515-rr-e.d.rebind.it", "s-93.184.215.14-10.0.0.5-17-ma-e.dynamic.rebind.it"];
    judgeNames(SINGULARITY, [...named, ...fc.sample(singularityName, { numRuns: 150, seed: ORACLE_SEED })], "Singularity");
  });

  it.skipIf(!PYTHON && !REQUIRE_ORACLES)("AWS EC2 IP-based names are the private address they spell, in every region [Amazon EC2 User Guide, 'Amazon EC2 instance hostname types']", () => {
    const names = fc.sample(awsName, { numRuns: 120, seed: ORACLE_SEED }).filter((name) => !name.startsWith("ip-172-"));
    judgeNames(AWS, ["ip-10-0-0-5.ec2.internal", "ip-10-24-34-0.us-west-2.compute.internal", "ip-192-168-1-20.eu-central-1.compute.internal", ...names], "AWS");
    // 172.16/12 is named by no deny here: its names stay allowed.
    expectAllowed("http://ip-172-31-5-9.eu-west-1.compute.internal/");
  });

  describe("public names that resolve to the loopback address are the loopback host [felippe-regazio/ssrfcheck#4; PayloadsAllTheThings 'Bypass using a domain redirection'; PortSwigger Web Security Academy; y-mehta/ssrf-req-filter]", () => {
    const cases = ["http://localh.st/", "http://LOCALH.ST./admin", "http://localh.st:8080/", "http://spoofed.burpcollaborator.net/", "http://SPOOFED.BurpCollaborator.net./x", "http://spoofed.k3x9q2.oastify.com/", "http://spoofed.abc123.burpcollaborator.net/", "https://spoofed.redacted.oastify.com:8443/"];
    it.each(cases)("%s", (url) => expectDenied(url, "documented to resolve to 127.0.0.1"));
    it("names beside them that are no such alias stay allowed", () => {
      for (const url of ["http://localhost.st.example.com/", "http://notspoofed.oastify.com/", "http://burpcollaborator.net/", "http://www.localh.st.evil.com/"]) expectAllowed(url);
    });
  });
});

// ---- paths: files with several names ----

const root = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-net-path-5-")));
const ws = `${root}/ws`;
const home = `${root}/home`;
afterAll(() => rmSync(root, { recursive: true, force: true }));
mkdirSync(`${ws}/secrets/sub`, { recursive: true });
mkdirSync(`${ws}/docs/deep/er`, { recursive: true });
mkdirSync(`${home}/.ssh`, { recursive: true });
const TARGETS: Readonly<Record<string, string>> = {
  key: `${ws}/secrets/key`,
  nested: `${ws}/secrets/sub/k2`,
  ssh: `${home}/.ssh/id_rsa`,
  doc: `${ws}/docs/guide.md`,
};
for (const [name, file] of Object.entries(TARGETS)) writeFileSync(file, name === "doc" ? "plain-doc" : `MARK-${name}`);

const pathPolicy = permissionPolicy(
  parsePolicy(
    `version: 1
pathBase: ${ws}
permissions:
  - { rule: "Read(./secrets/**)", mode: deny }
  - { rule: "Edit(./secrets/**)", mode: deny }
  - { rule: "Read(${home}/.ssh/**)", mode: deny }
  - { rule: "Edit(${home}/.ssh/**)", mode: deny }
  - { rule: "Read(./**)", mode: allow }
  - { rule: "Edit(./docs/**)", mode: allow }
`,
    "yaml",
    "hard-links.yaml",
  ),
);

/** The kernel on a name: its device and inode (`stat -L`) and what `cat` prints. */
function kernel(file: string): { id: string; text: string } {
  const stat = spawnSync("stat", ["-L", "-c", "%d:%i", file], { encoding: "utf8" });
  const cat = spawnSync("cat", [file], { encoding: "utf8" });
  return { id: stat.stdout.trim(), text: cat.stdout };
}

let serial = 0;
const linkCase = fc.record({
  target: fc.constantFrom(...Object.keys(TARGETS)),
  place: fc.constantFrom("docs", "", "docs/deep/er"),
  spelling: fc.constantFrom("absolute", "relative", "dot", "climb"),
  tool: fc.constantFrom("Read", "Edit"),
});

describe("a file with several names is the file under each of them [landstrip/landstrip#90; multikernel/sandlock#179; bindsch/scode#2]", () => {
  it.skipIf(!COREUTILS && !REQUIRE_ORACLES)("a hard link in an allowed place to a denied file is denied, for the Read and Edit tools, however it is spelled; one to a plain file keeps its decision", () => {
    let marked = 0;
    for (const { target, place, spelling, tool } of fc.sample(linkCase, { numRuns: 80, seed: ORACLE_SEED })) {
      const name = `h${serial++}.txt`;
      const relative = place === "" ? name : `${place}/${name}`;
      const absolute = `${ws}/${relative}`;
      linkSync(TARGETS[target]!, absolute);
      const judged = kernel(absolute);
      expect(judged.id, `${absolute} is ${TARGETS[target]}`).toBe(kernel(TARGETS[target]!).id);
      const value = spelling === "absolute" ? absolute : spelling === "relative" ? relative : spelling === "dot" ? `./${relative}` : `docs/../${relative}`;
      const args = tool === "Read" ? { file_path: value } : { file_path: value, old_string: "a", new_string: "b" };
      const decision = pathPolicy.decide(tool, args);
      const label = `${tool} ${value} (another name of ${TARGETS[target]})`;
      if (judged.text.startsWith("MARK-")) {
        marked++;
        expect(decision.mode, `${label}: ${decision.reason ?? ""}`).toBe("deny");
        // The Read rule holds in the shell too: grep reads the file.
        const grep = pathPolicy.decide("Bash", { command: `grep -c x ${value}` });
        expect(grep.mode, `grep -c x ${value}: ${grep.reason ?? ""}`).toBe("deny");
      } else if (tool === "Read" || place.startsWith("docs")) expect(decision.mode, `${label}: ${decision.reason ?? ""}`).toBe("allow");
    }
    expect(marked).toBeGreaterThan(0);
  });

  it("a file with one name, and the denied file's own name, keep their decisions", () => {
    writeFileSync(`${ws}/docs/single.md`, "one name");
    expect(pathPolicy.decide("Read", { file_path: "docs/single.md" }).mode).toBe("allow");
    expect(pathPolicy.decide("Edit", { file_path: "docs/single.md", old_string: "a", new_string: "b" }).mode).toBe("allow");
    expect(pathPolicy.decide("Read", { file_path: "secrets/key" }).mode).toBe("deny");
    expect(pathPolicy.decide("Read", { file_path: `${home}/.ssh/id_rsa` }).mode).toBe("deny");
  });
});

// ---- paths: a deny that names a place through a symlink ----

/** As macOS lays it out: `tmp` and `etc` are links to `private/tmp` and `private/etc`; a home reached through a link. */
const mac = `${root}/mac`;
mkdirSync(`${mac}/private/tmp/secrets/deep`, { recursive: true });
mkdirSync(`${mac}/private/etc`, { recursive: true });
mkdirSync(`${mac}/Volumes/data/alice/.ssh`, { recursive: true });
mkdirSync(`${mac}/Users`, { recursive: true });
symlinkSync("private/tmp", `${mac}/tmp`);
symlinkSync("private/etc", `${mac}/etc`);
symlinkSync(`${mac}/Volumes/data/alice`, `${mac}/Users/alice`);
const LINKED: Readonly<Record<string, { spelled: string; real: string }>> = {
  tmp: { spelled: `${mac}/tmp/secrets/key`, real: `${mac}/private/tmp/secrets/key` },
  deep: { spelled: `${mac}/tmp/secrets/deep/k2`, real: `${mac}/private/tmp/secrets/deep/k2` },
  etc: { spelled: `${mac}/etc/master.passwd`, real: `${mac}/private/etc/master.passwd` },
  home: { spelled: `${mac}/Users/alice/.ssh/id_ed25519`, real: `${mac}/Volumes/data/alice/.ssh/id_ed25519` },
};
for (const [name, { real }] of Object.entries(LINKED)) writeFileSync(real, `MARK-${name}`);
writeFileSync(`${mac}/private/tmp/notes.txt`, "plain");

const linkedPolicy = permissionPolicy(
  parsePolicy(
    `version: 1
pathBase: ${mac}
permissions:
  - { rule: "Read(${mac}/tmp/secrets/**)", mode: deny }
  - { rule: "Read(${mac}/etc/master.passwd)", mode: deny }
  - { rule: "Read(${mac}/Users/alice/.ssh/)", mode: deny }
  - { rule: "Read", mode: allow }
  - { rule: "Bash(cat ${mac}/tmp/secrets/*)", mode: deny }
  - { rule: "Bash(cat ${mac}/etc/master.passwd)", mode: deny }
  - { rule: "Bash(cat ${mac}/Users/alice/.ssh/*)", mode: deny }
  - { rule: "Bash(cat:*)", mode: allow }
`,
    "yaml",
    "linked-denies.yaml",
  ),
);

const linkedCase = fc.record({
  target: fc.constantFrom(...Object.keys(LINKED)),
  spelling: fc.constantFrom("real", "dotted", "doubled", "climb", "relative"),
});

describe("a deny that names a place through a symlink holds for its real name [modelcontextprotocol/servers#3253; ArcReel/ArcReel#622]", () => {
  it.skipIf(!COREUTILS && !REQUIRE_ORACLES)("the real path of a denied file, however spelled, is denied for the Read tool and for cat; realpath and cat judge", () => {
    for (const { target, spelling } of fc.sample(linkedCase, { numRuns: 60, seed: ORACLE_SEED })) {
      const { spelled, real } = LINKED[target]!;
      const value =
        spelling === "real" ? real : spelling === "dotted" ? real.replace("/private/", "/private/./") : spelling === "doubled" ? real.replace("/private/", "//private//") : spelling === "climb" ? real.replace("/private/", "/private/../private/") : path.relative(mac, real);
      const resolved = spawnSync("realpath", ["-m", value], { cwd: mac, encoding: "utf8" }).stdout.trim();
      expect(resolved, `${value} is ${real}`).toBe(spawnSync("realpath", ["-m", spelled], { encoding: "utf8" }).stdout.trim());
      expect(kernel(path.resolve(mac, value)).text, value).toBe(`MARK-${target}`);
      const read = linkedPolicy.decide("Read", { file_path: value });
      expect(read.mode, `Read ${value}: ${read.reason ?? ""}`).toBe("deny");
      if (value.startsWith("/")) {
        const cat = linkedPolicy.decide("Bash", { command: `cat ${value}` });
        expect(cat.mode, `cat ${value}: ${cat.reason ?? ""}`).toBe("deny");
      }
      // The Read rule holds in the shell too: grep reads the file.
      const grep = linkedPolicy.decide("Bash", { command: `grep -c x ${value}` });
      expect(grep.mode, `grep -c x ${value}: ${grep.reason ?? ""}`).toBe("deny");
    }
  });

  it("the spelled path stays denied, and a file beside the denied place stays allowed", () => {
    for (const { spelled } of Object.values(LINKED)) expect(linkedPolicy.decide("Read", { file_path: spelled }).mode, spelled).toBe("deny");
    for (const value of [`${mac}/private/tmp/notes.txt`, `${mac}/tmp/notes.txt`]) {
      expect(linkedPolicy.decide("Read", { file_path: value }).mode, value).toBe("allow");
      expect(linkedPolicy.decide("Bash", { command: `cat ${value}` }).mode, value).toBe("allow");
    }
  });
});

// ---- programs that connect to a host named without a URL ----

const HOST_PROGRAMS: Readonly<Record<string, { line: (host: string, port: number) => string; present: boolean }>> = {
  nc: { line: (host, port) => `nc -w 2 ${host} ${port}`, present: spawnSync("nc", ["-h"], { stdio: "ignore" }).error === undefined },
  telnet: { line: (host, port) => `telnet ${host} ${port}`, present: spawnSync("telnet", ["-h"], { stdio: "ignore" }).error === undefined },
  socat: { line: (host, port) => `socat -T 2 /dev/null TCP:${host}:${port}`, present: spawnSync("socat", ["-V"], { stdio: "ignore" }).status === 0 },
  ssh: { line: (host, port) => `ssh -o BatchMode=yes -o ConnectTimeout=2 -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -p ${port} ${host} true`, present: spawnSync("ssh", ["-V"], { stdio: "ignore" }).status === 0 },
  scp: { line: (host, port) => `scp -o BatchMode=yes -o ConnectTimeout=2 -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -P ${port} /etc/hostname ${host}:/tmp/x`, present: spawnSync("ssh", ["-V"], { stdio: "ignore" }).status === 0 },
  rsync: { line: (host, port) => `rsync --port=${port} --contimeout=2 /etc/hostname ${host}::m/x`, present: spawnSync("rsync", ["--version"], { stdio: "ignore" }).status === 0 },
  openssl: { line: (host, port) => `openssl s_client -connect ${host}:${port}`, present: spawnSync("openssl", ["version"], { stdio: "ignore" }).status === 0 },
  "redis-cli": { line: (host, port) => (host.length % 2 === 0 ? `redis-cli -h ${host} -p ${port} ping` : `redis-cli -u redis://${host.includes(":") ? `[${host}]` : host}:${port} ping`), present: spawnSync("redis-cli", ["--version"], { stdio: "ignore" }).status === 0 },
  psql: { line: (host, port) => `psql -h ${host} -p ${port} -c 'select 1'`, present: spawnSync("psql", ["--version"], { stdio: "ignore" }).status === 0 },
  mysql: { line: (host, port) => `mysql -h ${host} -P ${port} --connect-timeout=2 -e 'select 1'`, present: spawnSync("mysql", ["--version"], { stdio: "ignore" }).status === 0 },
};
const hostPolicy = permissionPolicy(
  parsePolicy(
    `version: 1
permissions:
${Object.keys(HOST_PROGRAMS).flatMap((program) => ["127.0.0.1", "169.254.169.254"].map((host) => `  - { rule: "Bash(${program} *${host}*)", mode: deny }`)).join("\n")}
${Object.keys(HOST_PROGRAMS).map((program) => `  - { rule: "Bash(${program}:*)", mode: allow }`).join("\n")}
`,
    "yaml",
    "host-programs.yaml",
  ),
);

let listener: Server | undefined;
let port = 0;
let connections = 0;
beforeAll(async () => {
  listener = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  // The unspecified address, both families: 127.0.0.0/8 and ::1 reach it.
  await new Promise<void>((resolve) => listener!.listen(0, "::", resolve));
  port = (listener.address() as { port: number }).port;
});
afterAll(() => listener?.close());

/** Runs a bash line (no input, a short timeout); resolves to whether the listener saw a connection. */
function reaches(line: string): Promise<boolean> {
  const before = connections;
  return new Promise((resolve) => {
    const child = execFile("bash", ["-c", line], { timeout: 6000, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, PGCONNECT_TIMEOUT: "2" } }, () => setTimeout(() => resolve(connections > before), 50));
    child.stdin?.end();
  });
}

/** 127.0.0.0/8 spelled as inet_aton reads it: 1 to 4 parts, each decimal, octal or hex; and localhost. */
const loopbackSpelling = fc
  .record({ b: octet, c: octet, d: fc.integer({ min: 1, max: 254 }), parts: fc.integer({ min: 1, max: 4 }), radix: fc.array(fc.constantFrom("dec", "oct", "hex"), { minLength: 4, maxLength: 4 }) })
  .map(({ b, c, d, parts, radix }) => {
    const bytes = [127, b, c, d];
    const value = (127 * 2 ** 24 + (b << 16) + (c << 8) + d) >>> 0;
    const head = bytes.slice(0, parts - 1);
    const tail = value % 2 ** (8 * (4 - head.length));
    const spell = (n: number, i: number) => (radix[i] === "oct" && n > 0 ? `0${n.toString(8)}` : radix[i] === "hex" ? `0x${n.toString(16)}` : String(n));
    return [...head.map(spell), spell(tail, 3)].join(".");
  });

describe("programs that connect to a host named without a URL read it as getaddrinfo does [PayloadsAllTheThings 'Bypass Using an Encoded IP Address'; nccgroup/singularity#36; bug-ops/zeph#6497; FerroxLabs/wayland#673]", () => {
  const present = Object.entries(HOST_PROGRAMS).filter(([, program]) => program.present || REQUIRE_ORACLES);
  it.skipIf(present.length === 0)(
    "a spelling of the loopback address that a program connects through is denied where 127.0.0.1 is",
    async () => {
      const spellings = ["0x7f.1", "2130706433", "0177.0.0.1", "127.1", "localhost", ...fc.sample(loopbackSpelling, { numRuns: 10, seed: ORACLE_SEED })];
      let reached = 0;
      for (const [, program] of present) {
        for (const host of spellings) {
          const line = program.line(host, port);
          if (!(await reaches(line))) continue;
          reached++;
          const decision = hostPolicy.decide("Bash", { command: line });
          expect(decision.mode, `${line} reaches the listener: ${decision.reason ?? ""}`).toBe("deny");
        }
      }
      expect(reached, "some program reached the listener").toBeGreaterThan(0);
    },
    300_000,
  );

  it("the same lines to a public host keep their decision", () => {
    for (const [name, program] of Object.entries(HOST_PROGRAMS)) {
      const line = program.line("db.example.com", 5432);
      const decision = hostPolicy.decide("Bash", { command: line });
      expect(decision.mode, `${name}: ${line}: ${decision.reason ?? ""}`).not.toBe("deny");
    }
    for (const line of ["nc example.com 80", "socat - TCP:example.com:443", "psql -h db.example.com", "openssl s_client -connect example.com:443"]) expect(hostPolicy.decide("Bash", { command: line }).mode, line).toBe("allow");
  });
});

describe("bash connects for a redirection to /dev/tcp/HOST/PORT, HOST read as getaddrinfo does [bug-ops/zeph#6497]", () => {
  const bashPolicy = permissionPolicy(parsePolicy(`version: 1\npermissions:\n  - { rule: "Bash(*127.0.0.1*)", mode: deny }\n  - { rule: "Bash(*169.254.169.254*)", mode: deny }\n  - { tool: Bash, mode: allow }\n`, "yaml", "dev-tcp.yaml"));
  it("a spelling of the loopback address bash connects through is denied where 127.0.0.1 is, in every redirection form", async () => {
    const spellings = ["0x7f.1", "2130706433", "0177.0.0.1", "127.1", "localhost", "::ffff:127.0.0.1", ...fc.sample(loopbackSpelling, { numRuns: 8, seed: ORACLE_SEED })];
    const forms = ["cat </dev/tcp/H/P", "echo x >/dev/tcp/H/P", "true 3<>/dev/tcp/H/P", "bash -c 'cat < /dev/tcp/H/P'", 'head -c1 < "/dev/tcp/H/P"'];
    let reached = 0;
    for (const host of spellings) {
      for (const form of forms) {
        const line = form.replace("H", host).replace("P", String(port));
        if (!(await reaches(line))) continue;
        reached++;
        const decision = bashPolicy.decide("Bash", { command: line });
        // `3<>` is a line the guard's parser cannot read: it asks (never allows).
        if (form.includes("3<>")) expect(decision.mode, `${line}: ${decision.reason ?? ""}`).toBe("ask");
        else expect(decision.mode, `${line} reaches the listener: ${decision.reason ?? ""}`).toBe("deny");
      }
    }
    expect(reached).toBeGreaterThan(0);
  }, 120_000);

  it("a redirection to another host, or to a file, keeps its decision", () => {
    for (const line of ["cat </dev/tcp/example.com/80", "echo x > /tmp/out.txt", "cat < /dev/null"]) expect(bashPolicy.decide("Bash", { command: line }).mode, line).toBe("allow");
    expect(bashPolicy.decide("Bash", { command: "cat </dev/tcp/$HOST/80" }).mode).toBe("ask");
  });
});

describe("redirect services are read as the URL they send the client to [PayloadsAllTheThings 'Bypassing Using a Redirect'; Horlad/r3dir; postmanlabs/httpbin; everruns/bashkit#1176]", () => {
  const CURL = spawnSync("curl", ["--version"], { stdio: "ignore" }).status === 0;
  /** A server that answers as the services document: a redirect to the `url` parameter, for `/redirect-to` and `/--to/`. */
  let redirector: HttpServer | undefined;
  let redirectorPort = 0;
  beforeAll(async () => {
    redirector = createHttpServer((request, response) => {
      const url = new URL(request.url ?? "/", "http://x/");
      response.writeHead(url.pathname.startsWith("/--to") ? 307 : 302, { location: url.searchParams.get("url") ?? "/" });
      response.end();
    });
    await new Promise<void>((resolve) => redirector!.listen(0, "127.0.0.1", resolve));
    redirectorPort = (redirector.address() as { port: number }).port;
  });
  afterAll(() => redirector?.close());

  const SERVICES = [
    { host: "httpbin.org", path: "/redirect-to" },
    { host: "www.httpbin.org", path: "/redirect-to" },
    { host: "httpbingo.org", path: "/redirect-to" },
    { host: "postman-echo.com", path: "/redirect-to" },
    { host: "307.r3dir.me", path: "/--to/" },
    { host: "x.--.302.r3dir.me", path: "/--to/" },
  ];

  it.skipIf(!CURL && !REQUIRE_ORACLES)("curl -L through the documented redirect reaches the loopback; the URL is denied where its target is", async () => {
    const targets = ["0x7f.1", "127.0.0.1", "localhost", "2130706433", "[::1]", ...fc.sample(loopbackSpelling, { numRuns: 4, seed: ORACLE_SEED })];
    let reached = 0;
    for (const [i, service] of SERVICES.entries()) {
      for (const [j, host] of targets.entries()) {
        const target = `http://${host}:${port}/`;
        const query = (i + j) % 2 === 0 ? `url=${encodeURIComponent(target)}` : `status_code=307&url=${target}`;
        const url = `http://${service.host}${service.path}?${query}`;
        // The service's name reaches this machine's stand-in for it (`--connect-to`), as DNS would reach the service.
        const line = `curl -s -L --max-time 3 --noproxy '*' --connect-to ${service.host}:80:127.0.0.1:${redirectorPort} ${quote(url)}`;
        if (!(await reaches(line))) continue;
        reached++;
        expectDenied(url, `${service.host} redirects to ${target}`);
        const followed = denyList.decide("Bash", { command: `curl -L ${quote(url)}` });
        expect(followed.mode, `curl -L ${url}: ${followed.reason ?? ""}`).toBe("deny");
      }
    }
    expect(reached).toBeGreaterThan(0);
  }, 120_000);

  it("a URL another server may redirect to makes a deny naming it ask; other parameters keep the decision", () => {
    for (const url of ["https://example.com/login?next=http://127.0.0.1:3000/", "https://example.com/r?to=http%3A%2F%2F169.254.169.254%2Flatest%2F", "https://example.com/?redirect_uri=http://localhost/cb"]) {
      expect(denyList.decide("WebFetch", { url }).mode, url).toBe("ask");
      expect(allowList.decide("WebFetch", { url }).mode, url).not.toBe("allow");
    }
    // A fetcher that follows redirects (curl -L, wget) may be sent there as well.
    for (const command of ["curl -L 'https://example.com/login?next=http://0x7f.1:3000/'", "wget 'https://example.com/?to=http://2130706433/'"]) {
      const decision = denyList.decide("Bash", { command });
      expect(decision.mode, command).toBe("ask");
      expect(decision.reason, command).toContain("carries another URL in its query, where its server may redirect the client");
    }
    for (const url of ["https://example.com/?q=hello", "https://example.com/?next=https://docs.example.com/", "https://httpbin.org/redirect-to?url=https://example.org/", "https://httpbin.org/get?url=x"]) {
      expectAllowed(url);
      expect(denyList.decide("Bash", { command: `curl -L ${quote(url)}` }).mode, url).toBe("allow");
    }
    expect(allowList.decide("WebFetch", { url: "https://api.example.com/v1/items?page=2" }).mode).toBe("allow");
  });
});
