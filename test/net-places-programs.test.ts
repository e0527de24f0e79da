/**
 * Programs that fetch without being HTTP clients — git (`clone`, `fetch`, `pull`, `ls-remote`,
 * `push`, `remote add`, `remote set-url`, `submodule add`, `archive --remote`, `clone --bundle-uri`),
 * pip (`install`/`download` of a URL or `git+URL`, `-i`/`--index-url`, `--extra-index-url`,
 * `-f`/`--find-links`, `--proxy`), npm (`install`/`i`/`add` of a URL, `git+URL`, `github:`,
 * `--registry`) — and inline code that connects (`python3 -c` with urllib, `node -e` with fetch,
 * `perl -e`, `ruby -e`): the places they connect to, under a deny list that names a host and under
 * an allow list of hosts.
 *
 * The real programs judge where installed: each command runs in bash against the loopback listeners
 * of test/helpers/net-listeners.ts (127.0.0.1, 127.0.0.2, ::1), which say whether it reached one.
 * The property: a command the real program sent to a loopback listener is never ALLOWED under a
 * deny list of loopback by the command's text (`Bash(git *127.0.0.1*)`, `*localhost*`, `*[::1]*`;
 * the programs otherwise allowed by the Bash tool's low risk); and plain commands to the allowed host
 * stay allowed under the allow list.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bashGuard, denyListGuard } from "./helpers/bash-rules.js";
import { installed, openListeners, type Listeners } from "./helpers/net-listeners.js";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";

const PROGRAMS = ["git", "pip", "pip3", "npm", "python3", "node", "perl", "ruby"];
const denyLoopback = permissionPolicy(
  parsePolicy(
    `version: 1
permissions:
${PROGRAMS.flatMap((program) => ["*127.0.0.1*", "*localhost*", "*[::1]*"].map((host) => `  - { rule: ${JSON.stringify(`Bash(${program} ${host})`)}, mode: deny }`)).join("\n")}
tools:
  Bash: { risk: low }
`,
    "yaml",
    "net-places-deny-loopback.yaml",
  ),
);
const onlyGithub = bashGuard(
  [
    "git clone https://github.com/*",
    "git fetch https://github.com/*",
    "git ls-remote https://github.com/*",
    "git remote add origin https://github.com/*",
    "git submodule add https://github.com/*",
    "pip install git+https://github.com/*",
    "npm install https://github.com/*",
  ],
  [],
  "net-places-only-github",
);

/** Each form around the loopback place `U` (host and port filled in per spelling). */
const FORMS: readonly { form: string; program: string }[] = [
  { form: "git clone -q U/r.git d", program: "git" },
  { form: "git clone --depth 1 U/r.git", program: "git" },
  { form: "git ls-remote U/r.git", program: "git" },
  { form: "git init -q d && cd d && git fetch U/r.git", program: "git" },
  { form: "git init -q d && git -C d pull U/r.git main", program: "git" },
  { form: "git init -q d && cd d && git remote add o U/r.git && git fetch o", program: "git" },
  { form: "git init -q d && cd d && git push U/r.git HEAD", program: "git" },
  { form: "git clone -q --bundle-uri=U/b https://github.invalid/r.git d", program: "git" },
  { form: "pip download --no-deps -q -d d U/x-1.0.tar.gz", program: "pip" },
  { form: "pip download --no-deps -q -d d git+U/r.git", program: "pip" },
  { form: "pip download --no-deps -q -d d -i U/simple x", program: "pip" },
  { form: "pip download --no-deps -q -d d --index-url=U/simple x", program: "pip" },
  { form: "npm install --no-save --prefix d U/x.tgz", program: "npm" },
  { form: `python3 -c "import urllib.request; urllib.request.urlopen('U/')"`, program: "python3" },
  { form: `node -e "fetch('U/').catch(() => {})"`, program: "node" },
  { form: `perl -MHTTP::Tiny -e 'HTTP::Tiny->new->get("U/")'`, program: "perl" },
];
const HOSTS = ["127.0.0.1", "0x7f.1", "2130706433", "0177.0.0.1", "127.1", "[::1]", "localhost"];
const CASES = FORMS.flatMap(({ form, program }) => HOSTS.map((host) => ({ command: form.replaceAll("U", `http://${host}:P`), program })));

describe("programs that fetch: where they connect, judged by the real programs", () => {
  let listeners: Listeners;
  beforeAll(async () => {
    listeners = await openListeners(4, { ".gitconfig": "[http]\n\tlowSpeedTime = 3\n[init]\n\tdefaultBranch = main\n[user]\n\tname = t\n\temail = t@t\n", ".config/pip/pip.conf": "[global]\ntimeout = 3\nretries = 0\ndisable-pip-version-check = true\n", ".npmrc": "fetch-retries=0\nfetch-timeout=3000\naudit=false\nfund=false\n" });
  });
  afterAll(() => listeners?.close());

  it.each(CASES.map((c) => [c.command, c] as const))("%s", async (_command, c) => {
    // The guard never allows it (the verdict does not depend on the port).
    const decision = denyLoopback.decide("Bash", { command: c.command.replaceAll(":P", ":8080") });
    if (!installed(c.program)) {
      expect(decision.mode, decision.reason).not.toBe("allow");
      return;
    }
    const { command, reached } = await listeners.run({ command: c.command, source: c.program }, 20_000);
    if (reached.length === 0) return;
    const real = denyLoopback.decide("Bash", { command });
    expect(real.mode, `${command} reached ${reached.join(", ")}: ${real.reason ?? ""}`).not.toBe("allow");
  }, 30_000);
});

describe("an allow list of hosts", () => {
  it.each([
    "git clone https://github.com@127.0.0.1/r.git",
    "git clone https://github.com/a/b.git --bundle-uri=http://127.0.0.1/b",
    "git clone https://github.com/a/b.git d --bundle-uri http://169.254.169.254/b",
    "pip install git+https://github.com/a/b http://169.254.169.254/x.tar.gz",
    "pip install git+https://github.com/a/b -i http://169.254.169.254/simple",
    "pip install git+https://github.com/a/b --extra-index-url http://169.254.169.254/simple",
    "npm install https://github.com/a/b --registry http://169.254.169.254/",
    "npm install https://github.com/a/b http://169.254.169.254/x.tgz",
    "git submodule add https://github.com/a/b http://169.254.169.254/",
  ])("%s is not allowed", (command) => expect(onlyGithub.decide("Bash", { command }).mode).not.toBe("allow"));

  it.each(["git clone https://github.com/a/b.git", "git clone https://github.com/a/b.git dir", "git fetch https://github.com/a/b.git main", "git ls-remote https://github.com/a/b", "pip install git+https://github.com/a/b", "npm install https://github.com/a/b"])(
    "%s stays allowed",
    (command) => expect(onlyGithub.decide("Bash", { command }).mode).toBe("allow"),
  );
});

describe("a deny on a host: every spelling of the place", () => {
  const guard = denyListGuard(["git *169.254.169.254*", "pip *169.254.169.254*", "npm *169.254.169.254*", "python3 *169.254.169.254*", "node *169.254.169.254*", "perl *169.254.169.254*", "ruby *169.254.169.254*"], "net-places-deny-metadata");
  it.each([
    "git clone http://0xa9fea9fe/r.git",
    "git clone http://[::ffff:a9fe:a9fe]/r.git",
    "git fetch http://0251.0376.0251.0376/r.git",
    "git pull http://2852039166/r.git main",
    "git ls-remote http://169.254.43518/r.git",
    "git remote add o http://0xa9fea9fe/r.git",
    "git remote set-url origin http://0xa9fea9fe/r.git",
    "git submodule add http://0xa9fea9fe/r.git sub",
    "git push http://0xa9fea9fe/r.git main",
    "git archive --remote=http://0xa9fea9fe/r.git HEAD",
    "git clone --bundle-uri=http://0xa9fea9fe/b https://github.com/a/b",
    "git clone metadata.google.internal:r.git",
    "git clone ssh://git@metadata.google.internal/r.git",
    "pip install git+http://0xa9fea9fe/r.git",
    "pip install x @ http://0xa9fea9fe/x.tar.gz",
    "pip download http://0xa9fea9fe/x.tar.gz",
    "pip install -i http://0xa9fea9fe/simple x",
    "pip install --index-url=http://0xa9fea9fe/simple x",
    "pip install --extra-index-url http://0xa9fea9fe/simple x",
    "pip install -f http://0xa9fea9fe/links x",
    "pip install --proxy http://0xa9fea9fe:3128 x",
    "python3 -m pip install git+http://0xa9fea9fe/r.git",
    "npm install http://0xa9fea9fe/x.tgz",
    "npm i git+http://0xa9fea9fe/r.git",
    "npm add x@http://0xa9fea9fe/x.tgz",
    "npm install --registry http://0xa9fea9fe/ x",
    "npm install --registry=http://0xa9fea9fe/ x",
  ])("%s", (command) => expect(guard.decide("Bash", { command }).mode).toBe("deny"));

  it.each([
    `python3 -c "import urllib.request; urllib.request.urlopen('http://0xa9fea9fe/')"`,
    `python3 -c "import urllib.request as u; u.urlopen('http://169.254.' + '169.254/')"`,
    `python3 -c "import requests; requests.get('http://0xa9fea9fe/')"`,
    `python3 -c "import socket; socket.create_connection(('0xa9fea9fe', 80))"`,
    `node -e "fetch('http://0xa9fea9fe/')"`,
    `node -e "require('http').get('http://0xa9fea9fe/')"`,
    `perl -MLWP::Simple -e 'get("http://0xa9fea9fe/")'`,
    `perl -MHTTP::Tiny -e 'HTTP::Tiny->new->get("http://0xa9fea9fe/")'`,
    `ruby -ropen-uri -e 'URI.open("http://0xa9fea9fe/")'`,
    `ruby -rnet/http -e 'Net::HTTP.get(URI("http://0xa9fea9fe/"))'`,
    `python3 <<'EOF'\nimport urllib.request\nurllib.request.urlopen("http://0xa9fea9fe/")\nEOF`,
    `node <<< "fetch('http://0xa9fea9fe/')"`,
  ])("inline code that connects cannot be told: %s", (command) => {
    const decision = guard.decide("Bash", { command });
    expect(decision.mode, decision.reason).toBe("ask");
    expect(decision.reason).toMatch(/connects/);
  });

  it("code a process substitution feeds to python3 that connects asks", () =>
    expect(guard.decide("Bash", { command: `python3 <(echo 'import urllib.request; urllib.request.urlopen("http://0xa9fea9fe/")')` }).mode).toBe("ask"));

  it.each(["git fetch origin", "git pull", "git push origin main"])("a remote by name connects where the repository's configuration says: a deny on a place cannot tell: %s", (command) => {
    const decision = guard.decide("Bash", { command });
    expect(decision.mode, decision.reason).toBe("ask");
    expect(decision.reason).toMatch(/configuration/);
  });

  it.each([
    "git clone https://github.com/a/b.git",
    "git remote add origin git@github.com:a/b.git",
    "pip install requests",
    "npm install",
    "npm i lodash",
    `python3 -c "import json; print(json.dumps({}))"`,
    `node -e "console.log(1)"`,
  ])("other places and plain commands are not denied: %s", (command) => expect(guard.decide("Bash", { command }).mode).toBe("allow"));

  it("a requirements file names places the guard does not read: a deny on a place cannot tell", () => {
    const decision = guard.decide("Bash", { command: "pip install -r requirements.txt" });
    expect(decision.mode).toBe("ask");
    expect(decision.reason).toMatch(/requirements\.txt/);
  });

  it("a deny that names no place is not made doubtful by inline code that connects", () => {
    const plain = denyListGuard(["rm:*", "git push:*"], "net-places-plain-deny");
    expect(plain.decide("Bash", { command: `python3 -c "import urllib.request; urllib.request.urlopen('http://example.com/')"` }).mode).not.toBe("ask");
  });
});
