// A script run after a program wrote files whose names the line does not give: an archive extracted (tar, bsdtar, unzip,
// 7z, cpio, ar), a tree checked out (git clone, pull, checkout, switch, reset --hard, merge, rebase, stash pop, restore,
// worktree add, submodule update), a recursive fetch (wget -r), a sync from elsewhere (rsync, scp), packages fetched
// (pip download, npm install), then run in the same line as a script or a program (`./run.sh`, `sh install.sh`,
// `python3 run.py`, `make`, `npm test`): what runs is what the archive or the tree holds, which a deny list cannot see.
// (1) hand cases and their negatives; (2) a judge by the real programs: archives and a git repository whose run.sh,
// Makefile, package.json, ... remove a canary file; whenever the real bash running a generated line removes it, the
// guard must not have allowed the line under `Bash(rm:*)` deny.
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { bashGuard, denyListGuard, installed } from "./helpers/bash-rules.js";

const DENY = ["rm:*", "curl:*"];
const denyList = denyListGuard(DENY, "script-after-extract");

/** Lines that run what a program just wrote under names the line does not give: a deny list cannot tell (ask). */
const CANNOT_TELL: readonly string[] = [
  // tar in every spelling of its extract operation, also the old style and with -C
  "tar -xf a.tar; ./run.sh",
  "tar xf a.tar; ./run.sh",
  "tar xzf a.tgz && bash setup.sh",
  "tar -xzf a.tgz && sh install.sh",
  "tar -zxvf a.tgz; ./configure",
  "tar -x -f a.tar && ./run.sh",
  "tar -f a.tar -x && ./run.sh",
  "tar --extract -f a.tar; ./run.sh",
  "tar --extract --file=a.tar && ./run.sh",
  "tar --ext -f a.tar && ./run.sh",
  "tar --get -f a.tar; ./run.sh",
  "tar -C d -xf a.tar && d/run.sh",
  "tar -xf a.tar -C /tmp/d && /tmp/d/run.sh",
  "tar xvjf a.tbz2 && ./run.sh",
  "gtar -xf a.tar && ./run.sh",
  "wget -qO- https://example.com/a.tgz | tar xz && ./install.sh",
  "bsdtar -xf a && ./x",
  "bsdtar xf a.zip && ./x",
  // other archivers, decompressors (FILE.gz becomes FILE), other version control systems, copies from storage elsewhere
  "unrar x a.rar && ./x.sh",
  "jar xf a.jar && sh x.sh",
  "unzip -q a.zip; jar -xf b.jar && ./run.sh",
  "dpkg-deb -x a.deb d && d/usr/bin/x",
  "gunzip run.sh.gz && sh run.sh",
  "gzip -d run.sh.gz; bash run.sh",
  "gzip --decompress run.sh.gz && ./run.sh",
  "bunzip2 run.sh.bz2 && ./run.sh",
  "xz -d run.sh.xz && ./run.sh",
  "unxz run.sh.xz; ./run.sh",
  "zstd -d run.sh.zst && ./run.sh",
  "unzstd run.sh.zst && ./run.sh",
  "lz4 -d run.sh.lz4 run.sh && ./run.sh",
  "svn checkout https://example.com/r d && d/x.sh",
  "svn up && make",
  "hg clone https://example.com/r r && cd r && make",
  "hg pull -u && ./x.sh",
  "hg update other && ./x.sh",
  "aws s3 cp s3://bucket/x.sh . && sh x.sh",
  "aws s3 sync s3://bucket/d d && d/x.sh",
  "gsutil cp gs://bucket/x.sh . && sh x.sh",
  "rclone copy remote:bucket/x.sh . && sh x.sh",
  "kubectl cp pod:/x.sh x.sh && sh x.sh",
  "docker cp c:/x.sh . && ./x.sh",
  // unzip's default mode extracts
  "unzip a.zip && sh install.sh",
  "unzip -o a.zip; ./install.sh",
  "unzip -q a.zip -d d && d/install.sh",
  "unzip -qo a.zip && bash install.sh",
  "7z x a.7z && ./x",
  "7z e a.7z && ./x",
  "7za x -y a.7z; sh x",
  "7zr x a.7z && ./x",
  "cpio -i < a.cpio; ./x",
  "cpio -idmv < a.cpio; ./x",
  "cpio --extract -F a.cpio && ./x",
  "ar x a.deb && sh postinst",
  "ar xv a.deb && ./postinst",
  // checkouts: the tree's files change under names the line does not give
  "git clone https://example.com/r.git d && d/install.sh",
  "git clone https://example.com/r.git && cd r && ./install.sh",
  "git clone --depth 1 https://example.com/r.git r; cd r; make",
  "git pull && ./build.sh",
  "git pull --rebase origin main; ./build.sh",
  "git checkout other && ./x.sh",
  "git checkout other -- . && ./x.sh",
  "git switch other && make",
  "git reset --hard origin/main && ./x.sh",
  "git merge other; ./x.sh",
  "git rebase main && ./x.sh",
  "git stash pop && ./x.sh",
  "git stash apply; ./x.sh",
  "git restore --source=other . && ./x.sh",
  "git worktree add ../w other && ../w/x.sh",
  "git submodule update --init && ./sub/x.sh",
  "git -C repo pull && repo/x.sh",
  // recursive fetches and syncs from elsewhere
  "wget -r https://example.com/ && sh example.com/x.sh",
  "wget --mirror https://example.com/ && sh example.com/x.sh",
  "wget -rnp https://example.com/d/ && sh example.com/d/x.sh",
  "rsync -a host:dir/ . && ./x",
  "rsync -avz user@host:/srv/app/ app/ && app/run.sh",
  "scp host:x.sh . && ./x.sh",
  "scp -r host:dir . && dir/x.sh",
  "pip download x && ./x",
  "pip download --no-deps -d pkgs x; python3 pkgs/setup.py",
  "npm pack x && node x/y.js",
  "npm install x && node node_modules/x/y.js",
  // runners: interpreters given a script file, make, package scripts
  "tar -xf a.tar && python3 run.py",
  "tar -xf a.tar && python run.py",
  "tar -xf a.tar && node run.js",
  "tar -xf a.tar && perl run.pl",
  "tar -xf a.tar && ruby run.rb",
  "tar -xf a.tar && php run.php",
  "tar -xf a.tar && Rscript run.R",
  "tar -xf a.tar && make",
  "tar -xf a.tar && make install",
  "tar -xf a.tar && make -C d",
  "tar -xf a.tar && make -f build.mk",
  "tar -xf a.tar && npm test",
  "tar -xf a.tar && npm run build",
  "tar -xf a.tar && npm start",
  "tar -xf a.tar && npm install",
  "tar -xf a.tar && npm ci",
  "unzip a.zip && pnpm test",
  "unzip a.zip && pnpm install",
  "unzip a.zip && yarn",
  "unzip a.zip && yarn test",
  "unzip a.zip && yarn run build",
  "git clone https://example.com/r.git && cd r && npm install",
  "tar -xf a.tar; . ./run.sh",
  "tar -xf a.tar; source run.sh",
  "tar -xf a.tar\n./run.sh",
  "tar -xf a.tar; cd d; ./run.sh",
  "tar -xf a.tar | ./run.sh",
  "(tar -xf a.tar) && ./run.sh",
  "tar -xf a.tar && sudo ./run.sh",
  "for f in a b; do ./run.sh; tar -xf $f.tar; done",
  "f() { ./run.sh; }; tar -xf a.tar; f",
  "trap './run.sh' EXIT; tar -xf a.tar",
  "./run.sh & tar -xf a.tar",
  "alias x='tar -xf a.tar'; x; ./run.sh",
  "echo a.tar | xargs tar -xf; ./run.sh",
  "bash -c 'tar -xf a.tar'; ./run.sh",
  "tar -xf a.tar && env ./run.sh",
  "tar -xf a.tar && exec ./run.sh",
  "tar -xf a.tar && time ./run.sh",
  "tar -xf a.tar && bash -c ./run.sh",
  "tar -xf a.tar && sh < run.sh",
  "tar -xf a.tar && python3 -u run.py",
  "tar -xf a.tar && python3 -m run",
  "git pull && /usr/bin/env python3 x.py",
  "git checkout -- x.sh && ./x.sh",
  "python3 -m pip download x && ./x",
  "find . -name '*.tar' -exec tar -xf {} \\; -exec ./run.sh \\;",
  // tar hands each member to a shell or an interpreter as its input
  "tar -xf a.tar --to-command=sh",
  "tar -xf a.tar --to-command='bash -s'",
  "tar --to-command python3 -xf a.tar",
  // written by name, and run by an interpreter, make or a package manager
  "echo 'import os' > r.py; python3 r.py",
  "printf 'all:\\n\\ttrue\\n' > Makefile && make",
  "echo '{}' > package.json && npm test",
  // written by name, as before
  "gunzip -c a.gz > x.sh; ./x.sh",
  "echo x > s.sh; bash s.sh",
  "patch < x.patch; ./s.sh",
  "git apply x.patch && ./s.sh",
];

/** Lines that stay as they were (allowed under the deny list): nothing unlisted is written, or nothing runs after it. */
const UNCHANGED: readonly string[] = [
  "tar -tf a.tar; ./run.sh",
  "tar tf a.tar && ./run.sh",
  "tar tvzf a.tgz && ./run.sh",
  "tar --list -f a.tar; ./run.sh",
  "tar -cf a.tar d; ./run.sh",
  "tar czf a.tgz d && ./run.sh",
  "tar -xOf a.tar run.sh | less; ./run.sh",
  "tar -xf a.tar --to-stdout | wc -c; ./run.sh",
  "tar -xf a.tar --to-command=cat; ./run.sh",
  "unzip -l a.zip && sh install.sh",
  "unzip -t a.zip && sh install.sh",
  "unzip -v a.zip && sh install.sh",
  "unzip -Z a.zip && sh install.sh",
  "unzip -p a.zip install.sh | wc -l && sh install.sh",
  "unzip -qql a.zip && sh install.sh",
  "7z l a.7z && ./x",
  "7z t a.7z && ./x",
  "cpio -t < a.cpio; ./x",
  "cpio -it < a.cpio; ./x",
  "ar t a.deb && ./x",
  "ar p a.deb control | wc -l && ./x",
  "git status && ./x.sh",
  "git log --oneline; ./x.sh",
  "git diff && make",
  "git fetch && ./x.sh",
  "git checkout -b feature && npm test",
  "git switch -c feature && ./x.sh",
  "git stash && ./x.sh",
  "git stash list; ./x.sh",
  "wget https://example.com/a.tgz && ./x.sh",
  "rsync -a src/ dst/ && ./x",
  "tar -xf a.tar",
  "unzip a.zip",
  "git clone https://example.com/r.git",
  "./run.sh",
  "make && npm test",
  "./run.sh; tar -xf a.tar",
  "make; unzip a.zip",
  "npm test && git pull",
  "tar -xf a.tar && cat run.sh",
  "tar -xf a.tar && ls -la",
  "tar -xf a.tar && echo done",
  "tar -xf a.tar && python3 -c 'print(1)'",
  "tar -xf a.tar && node -e 'console.log(1)'",
  "tar -xf a.tar && python3 --version",
  "npm install && npm test",
  "npm ci && npm run build",
  // a run before the writer (also after patch, which asked before in any order)
  "./s.sh; patch < x.patch",
  "make && git pull",
  // the system's own programs are not what a checkout writes
  "git pull && /usr/bin/python3 --version",
  "gzip -c x > x.gz && ./run.sh",
  "gunzip -c a.gz > b; ./run.sh",
  "gunzip -t a.gz && ./run.sh",
  "zstd -dc a.zst | wc -c; ./run.sh",
  "gunzip -l a.gz && ./run.sh",
  "svn status && ./x.sh",
  "hg pull && ./x.sh",
  "hg status; ./x.sh",
  "aws s3 ls && sh x.sh",
  "docker ps && ./x.sh",
];

describe("a script run after an extraction or a checkout: a deny list cannot tell", () => {
  it.each(CANNOT_TELL.map((command) => [command]))("%s", (command) => {
    const decision = denyList.decide("Bash", { command });
    expect(decision.mode, decision.reason).toBe("ask");
    expect(decision.reason).toMatch(/cannot tell/);
  });
  it("the reason names the writer and the run", () => {
    const decision = denyList.decide("Bash", { command: "tar -xf a.tar; ./run.sh" });
    expect(decision.reason).toMatch(/tar/);
    expect(decision.reason).toMatch(/run\.sh/);
    const clone = denyList.decide("Bash", { command: "git clone https://example.com/r.git && cd r && make" });
    expect(clone.reason).toMatch(/git clone/);
    expect(clone.reason).toMatch(/make/);
  });
});

describe("lines that extract nothing, or run nothing after it, stay as they were", () => {
  it.each(UNCHANGED.map((command) => [command]))("%s", (command) => {
    const decision = denyList.decide("Bash", { command });
    expect(decision.mode, decision.reason).toBe("allow");
  });
});

describe("allow rules", () => {
  // An allow that names the extractor and the script covers the line as it covers `patch < x; ./s.sh` and
  // `echo x | tee s.sh; ./s.sh` under allows of both (a writer's own form, a redirection or `curl -o`, is refused on its own).
  it("allows of both programs, with no deny rule, cover the line as they cover patch and tee", () => {
    const guard = bashGuard(["tar:*", "./run.sh", "patch:*", "./s.sh"], [], "script-after-extract-allow");
    expect(guard.decide("Bash", { command: "patch < x.patch; ./s.sh" }).mode).toBe("allow");
    expect(guard.decide("Bash", { command: "tar -xf a.tar; ./run.sh" }).mode).toBe("allow");
  });
  it("with a deny rule beside them, the deny cannot tell: ask", () => {
    const guard = bashGuard(["tar:*", "./run.sh", "unzip:*", "sh:*", "make"], ["rm:*"], "script-after-extract-allow-deny");
    for (const command of ["tar -xf a.tar; ./run.sh", "unzip a.zip && sh install.sh", "tar -xf a.tar && make"]) {
      const decision = guard.decide("Bash", { command });
      expect(decision.mode, `${command}: ${decision.reason}`).toBe("ask");
    }
    expect(guard.decide("Bash", { command: "tar -tf a.tar; ./run.sh" }).mode).toBe("allow");
  });
  it("an ask rule cannot tell either", () => {
    const guard = permissionAsk();
    const decision = guard.decide("Bash", { command: "unzip a.zip && sh install.sh" });
    expect(decision.mode).toBe("ask");
    expect(decision.reason).toMatch(/cannot tell/);
  });
});

/** An ask rule on rm beside allows of the programs. */
function permissionAsk() {
  const yaml = `version: 1\npermissions:\n  - { rule: "Bash(rm:*)", mode: ask }\n  - { rule: "Bash(unzip:*)", mode: allow }\n  - { rule: "Bash(sh:*)", mode: allow }\n`;
  return permissionPolicy(parsePolicy(yaml, "yaml", "script-after-extract-ask.yaml"));
}

// ---- (2) the real programs ----

const HAS = { gzip: installed("gzip"), xz: installed("xz"), zstd: installed("zstd"), hg: installed("hg"), sevenZip: installed("7z"), cpio: installed("cpio"), bsdtar: installed("bsdtar"), ar: installed("ar"), node: installed("node"), python3: installed("python3"), perl: installed("perl"), make: installed("make"), npm: installed("npm"), git: installed("git") };

let root = "";
let canary = "";
/** Where the archives and the repository are built once. */
let stock = "";

/** The files of the archive (and of the git branch `other`): each removes the canary. */
function payload(dir: string): void {
  const rm = `rm -f ${canary}`;
  mkdirSync(dir, { recursive: true });
  const files: Record<string, string> = {
    "run.sh": `#!/bin/sh\n${rm}\n`,
    "install.sh": `#!/bin/sh\n${rm}\n`,
    x: `#!/bin/sh\n${rm}\n`,
    "run.py": `import os\nos.remove(${JSON.stringify(canary)})\n`,
    "run.js": `require("fs").rmSync(${JSON.stringify(canary)}, { force: true });\n`,
    "run.pl": `unlink ${JSON.stringify(canary)};\n`,
    Makefile: `all:\n\t${rm}\n`,
    "package.json": JSON.stringify({ name: "p", version: "1.0.0", scripts: { test: rm, start: rm, go: rm, install: rm } }),
  };
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(path.join(dir, name), text);
    chmodSync(path.join(dir, name), 0o755);
  }
}

function sh(line: string, cwd: string): void {
  const run = spawnSync("bash", ["-c", line], { cwd, stdio: ["ignore", "pipe", "pipe"], timeout: 30_000 });
  if (run.status !== 0) throw new Error(`${line}: ${String(run.stderr)}`);
}

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), "extract-run-"));
  canary = path.join(root, "canary");
  stock = path.join(root, "stock");
  const content = path.join(root, "content");
  payload(content);
  mkdirSync(stock);
  sh(`tar -cf ${stock}/a.tar . && tar -czf ${stock}/a.tgz . && zip -qr ${stock}/a.zip .`, content);
  if (HAS.sevenZip) sh(`7z a -bd ${stock}/a.7z . >/dev/null`, content);
  if (HAS.cpio) sh(`ls | cpio -o --quiet > ${stock}/a.cpio`, content);
  if (HAS.ar) sh(`ar rc ${stock}/a.ar run.sh install.sh x Makefile package.json run.py run.js run.pl`, content);
  // Compressed copies of the payload's run.sh (gunzip writes run.sh for run.sh.gz), and a Mercurial repository holding the payload.
  const compressed = path.join(root, "stock-gz");
  mkdirSync(compressed);
  cpSync(path.join(content, "run.sh"), path.join(compressed, "run.sh"));
  if (HAS.gzip) sh("gzip -k run.sh", compressed);
  if (HAS.xz) sh("xz -k run.sh", compressed);
  if (HAS.zstd) sh("zstd -qk run.sh", compressed);
  if (HAS.hg) sh(`cp -a ${content} hgrepo && cd hgrepo && hg init -q && hg add -q . && hg commit -q -u t -m payload`, root);
  if (HAS.git) {
    // A repository whose main branch lacks the payload and whose branch `other` holds it; `origin` is a bare copy.
    const env = "-c user.email=t@t -c user.name=t -c init.defaultBranch=main -c commit.gpgsign=false";
    sh(`git ${env} init -q repo && cd repo && echo r > README && git add README && git ${env} commit -qm init && git checkout -qb other && cp -a ../../content/. . && git add -A && git ${env} commit -qm payload && git checkout -q main && git clone -q --bare . ../origin.git`, stock);
  }
}, 60_000);

afterAll(() => {
  if (root !== "") rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

/** Runs `line` with the real bash in a fresh copy of the stock directory (inside the repository); whether the canary went. */
function canaryGone(line: string): boolean {
  const dir = mkdtempSync(path.join(root, "w-"));
  try {
    cpSync(stock, dir, { recursive: true });
    writeFileSync(canary, "");
    const cwd = HAS.git ? path.join(dir, "repo") : dir;
    if (HAS.git) for (const name of ["a.tar", "a.tgz", "a.zip", "a.7z", "a.cpio", "a.ar"]) if (existsSync(path.join(dir, name))) cpSync(path.join(dir, name), path.join(cwd, name));
    spawnSync("bash", ["-c", line], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 30_000,
      env: { ...process.env, HOME: dir, TERM: "dumb", GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t", npm_config_update_notifier: "false", npm_config_audit: "false", npm_config_fund: "false" },
    });
    return !existsSync(canary);
  } finally {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

/** Extractions and checkouts, as their real options spell them (`dir`: where the payload lands, relative to the work dir). */
const WRITERS: readonly { line: string; dir: string; when: boolean }[] = [
  { line: "tar -xf a.tar", dir: ".", when: true },
  { line: "tar xf a.tar", dir: ".", when: true },
  { line: "tar xzf a.tgz", dir: ".", when: true },
  { line: "tar -zxvf a.tgz >/dev/null", dir: ".", when: true },
  { line: "tar -x -f a.tar", dir: ".", when: true },
  { line: "tar -f a.tar -x", dir: ".", when: true },
  { line: "tar --extract --file=a.tar", dir: ".", when: true },
  { line: "tar --ext -f a.tar", dir: ".", when: true },
  { line: "tar --get --file a.tar", dir: ".", when: true },
  { line: "mkdir d && tar -C d -xf a.tar", dir: "d", when: true },
  { line: "mkdir d && tar -xf a.tar --directory=d", dir: "d", when: true },
  { line: "tar -tf a.tar >/dev/null", dir: ".", when: true },
  { line: "tar tvf a.tar >/dev/null", dir: ".", when: true },
  { line: "tar -xOf a.tar run.sh >/dev/null", dir: ".", when: true },
  { line: "unzip a.zip >/dev/null", dir: ".", when: true },
  { line: "unzip -q a.zip", dir: ".", when: true },
  { line: "unzip -qo a.zip", dir: ".", when: true },
  { line: "unzip -q a.zip -d d", dir: "d", when: true },
  { line: "unzip -l a.zip >/dev/null", dir: ".", when: true },
  { line: "unzip -t a.zip >/dev/null", dir: ".", when: true },
  { line: "unzip -Z a.zip >/dev/null", dir: ".", when: true },
  { line: "unzip -p a.zip run.sh >/dev/null", dir: ".", when: true },
  { line: "bsdtar -xf a.tar", dir: ".", when: HAS.bsdtar },
  { line: "bsdtar xf a.zip", dir: ".", when: HAS.bsdtar },
  { line: "bsdtar -tf a.tar >/dev/null", dir: ".", when: HAS.bsdtar },
  { line: "7z x -bd a.7z >/dev/null", dir: ".", when: HAS.sevenZip },
  { line: "7z e -bd -y a.7z >/dev/null", dir: ".", when: HAS.sevenZip },
  { line: "7z x -bd -od a.7z >/dev/null", dir: "d", when: HAS.sevenZip },
  { line: "7za x -bd a.7z >/dev/null", dir: ".", when: HAS.sevenZip },
  { line: "7z l a.7z >/dev/null", dir: ".", when: HAS.sevenZip },
  { line: "cpio -i --quiet < a.cpio", dir: ".", when: HAS.cpio },
  { line: "cpio -idm --quiet < a.cpio", dir: ".", when: HAS.cpio },
  { line: "cpio --extract --quiet -F a.cpio", dir: ".", when: HAS.cpio },
  { line: "cpio -it --quiet < a.cpio >/dev/null", dir: ".", when: HAS.cpio },
  { line: "ar x a.ar", dir: ".", when: HAS.ar },
  { line: "ar xo a.ar", dir: ".", when: HAS.ar },
  { line: "ar t a.ar >/dev/null", dir: ".", when: HAS.ar },
  { line: "git checkout -q other", dir: ".", when: HAS.git },
  { line: "git switch -q other", dir: ".", when: HAS.git },
  { line: "git checkout -q other -- .", dir: ".", when: HAS.git },
  { line: "git restore --source=other .", dir: ".", when: HAS.git },
  { line: "git reset -q --hard other", dir: ".", when: HAS.git },
  { line: "git merge -q --ff-only other", dir: ".", when: HAS.git },
  { line: "git rebase -q other", dir: ".", when: HAS.git },
  { line: "git clone -q ../origin.git d && git -C d checkout -q other", dir: "d", when: HAS.git },
  { line: "git clone -q -b other ../origin.git d", dir: "d", when: HAS.git },
  { line: "git worktree add -q ../w other", dir: "../w", when: HAS.git },
  { line: "git log other >/dev/null", dir: ".", when: HAS.git },
  { line: "git checkout -qb feature", dir: ".", when: HAS.git },
  { line: "git show other:run.sh >/dev/null", dir: ".", when: HAS.git },
  { line: "cp ../../stock-gz/run.sh.gz . && gunzip run.sh.gz", dir: ".", when: HAS.gzip },
  { line: "cp ../../stock-gz/run.sh.gz . && gzip -d run.sh.gz", dir: ".", when: HAS.gzip },
  { line: "cp ../../stock-gz/run.sh.gz . && gzip -t run.sh.gz", dir: ".", when: HAS.gzip },
  { line: "cp ../../stock-gz/run.sh.xz . && xz -d run.sh.xz", dir: ".", when: HAS.xz },
  { line: "cp ../../stock-gz/run.sh.zst . && zstd -qd run.sh.zst", dir: ".", when: HAS.zstd },
  { line: "hg clone -q ../../hgrepo h", dir: "h", when: HAS.hg },
];

/** Runs of a file the writer may have put there, at `D` (the writer's directory). */
const RUNNERS: readonly { line: string; when: boolean }[] = [
  { line: "./D/run.sh", when: true },
  { line: "sh D/install.sh", when: true },
  { line: "bash ./D/run.sh", when: true },
  { line: ". ./D/run.sh", when: true },
  { line: "source D/install.sh", when: true },
  { line: "D/x", when: true },
  { line: "cd D && ./run.sh", when: true },
  { line: "python3 D/run.py", when: HAS.python3 },
  { line: "node D/run.js", when: HAS.node },
  { line: "perl D/run.pl", when: HAS.perl },
  { line: "make -s -C D", when: HAS.make },
  { line: "cd D && make -s", when: HAS.make },
  { line: "make -s -f D/Makefile", when: HAS.make },
  { line: "cd D && npm test --silent", when: HAS.npm },
  { line: "cd D && npm run go --silent", when: HAS.npm },
  { line: "npm --prefix D start --silent", when: HAS.npm },
  { line: "cat D/run.sh >/dev/null", when: true },
];

const SEPARATORS = ["; ", " && ", "\n"];

describe("judged by the real tar: --to-command hands each member to a shell, which runs it", () => {
  it.each([["tar -xf a.tar --to-command=sh"], ["tar -xf a.tar --to-command='bash -s'"], ["tar --to-command sh -xf a.tar"], ["tar -xf a.tar --to-comm=sh"]])("%s", (line) => {
    expect(canaryGone(line), "the real tar ran the member").toBe(true);
    expect(denyList.decide("Bash", { command: line }).mode).not.toBe("allow");
  });
});

describe("judged by the real programs: whenever the line removes the canary, the guard did not allow it", () => {
  const writers = WRITERS.filter((w) => w.when);
  const runners = RUNNERS.filter((r) => r.when);
  const lines = fc.sample(
    fc.record({ writer: fc.constantFrom(...writers), runner: fc.constantFrom(...runners), separator: fc.constantFrom(...SEPARATORS), reversed: fc.boolean() }),
    { seed: 20261129, numRuns: 160 },
  );
  const built = [...new Map(lines.map((l) => {
    const run = l.runner.line.replaceAll("./D/", l.writer.dir === "." ? "./" : `${l.writer.dir}/`).replaceAll("D/", l.writer.dir === "." ? "" : `${l.writer.dir}/`).replaceAll(" D", ` ${l.writer.dir}`);
    const line = l.reversed ? `${run}${l.separator}${l.writer.line}` : `${l.writer.line}${l.separator}${run}`;
    return [line, line] as const;
  })).values()];
  it("every line that removed the canary was not allowed", () => {
    const failed: string[] = [];
    let gone = 0;
    for (const line of built) {
      const decision = denyList.decide("Bash", { command: line });
      if (!canaryGone(line)) continue;
      gone += 1;
      if (decision.mode === "allow") failed.push(line);
    }
    // The judge judges something: most lines that extract or check out, then run, really remove the canary.
    expect(gone).toBeGreaterThan(built.length / 5);
    expect(failed, `${failed.length} of ${built.length} lines (${gone} removed the canary) were allowed:\n${failed.join("\n---\n")}`).toEqual([]);
  }, 600_000);
});
