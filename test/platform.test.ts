import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { graph as devopsGraph } from "../graphs/devops.js";
import { createMemoryGraph, graph as memoryGraph } from "../graphs/memory.js";
import { platformPolicy, type ReadyGraph } from "../graphs/shared.js";
import { ErrorCode, GuardedGraphError } from "../src/errors/index.js";
import { deployMessages } from "../src/messages/index.js";
import { packageRoot } from "../src/package-root.js";
import { ApiKeys, authenticateRequest } from "../src/platform/api-keys.js";
import { policyFiles, resolvePolicyName } from "../src/platform/policy-names.js";
import { RunStore } from "../src/platform/run-store.js";

const KEY_A = "alice-key-0123456789abcdef";
const KEY_B = "bob-key-0123456789abcdefgh";
const dirs: string[] = [];
const opened: ReadyGraph[] = [];
const savedEnv = { ...process.env };
afterEach(async () => {
  for (const ready of opened.splice(0)) await ready.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  process.env = { ...savedEnv };
});
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}
function thrown(fn: () => unknown): GuardedGraphError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(GuardedGraphError);
    return error as GuardedGraphError;
  }
  throw new Error("did not throw");
}
const headers = (h: Record<string, string>) => new Headers(h);

describe("API keys of the auth handler (graphs/auth.ts)", () => {
  const keys = ApiKeys.parse(`alice:${KEY_A}, bob:${KEY_B}\n`);

  it("a key names its user; x-api-key and Authorization: Bearer both carry it", () => {
    expect(authenticateRequest(keys, headers({ "x-api-key": KEY_A }))).toEqual({
      ok: true,
      user: { identity: "alice", display_name: "alice", is_authenticated: true, permissions: [] },
    });
    expect(authenticateRequest(keys, headers({ authorization: `Bearer ${KEY_B}` }))).toMatchObject({ ok: true, user: { identity: "bob" } });
  });

  it("refuses a missing key, a wrong key, a key's prefix or extension, and every request when no key is configured", () => {
    expect(authenticateRequest(keys, headers({}))).toEqual({ ok: false, status: 401, message: deployMessages.missingApiKey() });
    for (const wrong of ["nobody-key-0123456789abcdef", KEY_A.slice(0, -1), `${KEY_A}x`, KEY_A.toUpperCase(), `alice:${KEY_A}`]) {
      expect(authenticateRequest(keys, headers({ "x-api-key": wrong }))).toEqual({ ok: false, status: 401, message: deployMessages.unknownApiKey() });
    }
    // Studio's header alone is no identity.
    expect(authenticateRequest(keys, headers({ "x-auth-scheme": "langsmith" })).ok).toBe(false);
    expect(authenticateRequest(ApiKeys.parse(undefined), headers({ "x-api-key": KEY_A }))).toEqual({
      ok: false,
      status: 401,
      message: "Request refused: the server has no API keys configured; set GUARDED_GRAPH_API_KEYS=<user>:<key>[,<user>:<key>…] in its environment.",
    });
  });

  it("the health probe (GET or HEAD /ok) needs no key, even with none configured; nothing else passes without one", () => {
    const probe = (method: string, url: string, k = keys) => authenticateRequest(k, headers({}), { method, url }).ok;
    expect(probe("GET", "http://127.0.0.1:2024/ok")).toBe(true);
    expect(probe("HEAD", "http://127.0.0.1:2024/ok?x=1")).toBe(true);
    expect(probe("GET", "http://127.0.0.1:2024/ok", ApiKeys.parse(undefined))).toBe(true);
    for (const [method, url] of [["POST", "http://h/ok"], ["GET", "http://h/ok/"], ["GET", "http://h/okay"], ["GET", "http://h/threads/ok"], ["GET", "http://h/info"]] as const) {
      expect(probe(method, url), `${method} ${url}`).toBe(false);
    }
  });

  it("refuses to start with a malformed entry, a short key, or one key given to two users (exact sentences)", () => {
    expect(thrown(() => ApiKeys.parse(`alice${KEY_A}`)).message).toBe(
      "GUARDED_GRAPH_API_KEYS entry 1 is invalid: it has no ':' between user and key; write <user>:<key> with a key of at least 16 characters.",
    );
    expect(thrown(() => ApiKeys.parse(`alice:${KEY_A},bob:short`)).message).toBe(
      "GUARDED_GRAPH_API_KEYS entry 2 is invalid: the key is shorter than 16 characters; write <user>:<key> with a key of at least 16 characters.",
    );
    const dup = thrown(() => ApiKeys.parse(`alice:${KEY_A},mallory:${KEY_A}`));
    expect(dup.code).toBe(ErrorCode.PLATFORM_CONFIG);
    expect(dup.message).toBe("GUARDED_GRAPH_API_KEYS entry 2 repeats a key already given to another entry; every key must be unique.");
    expect(thrown(() => ApiKeys.parse(`al ice:${KEY_A}`)).message).toMatch(/^GUARDED_GRAPH_API_KEYS entry 1 is invalid: the user is letters/);
  });
});

describe("per-assistant policy by name (configurable.policy)", () => {
  const bundled = join(packageRoot(), "policies");

  it("names the server's own policy files; the JSON schema is not a policy", () => {
    expect([...policyFiles(bundled).keys()].sort()).toEqual(["api-agent", "devops", "etl"]);
    expect(resolvePolicyName("devops", bundled)).toBe(join(bundled, "devops.yaml"));
  });

  it("refuses anything that is not a plain known name: unknown names, paths, file names, bodies (exact sentences)", () => {
    const unknown = thrown(() => resolvePolicyName("permissive", bundled));
    expect(unknown.code).toBe(ErrorCode.POLICY);
    expect(unknown.message).toBe('Policy "permissive" is not one of the server\'s policies; known: api-agent, devops, etl.');
    for (const name of ["../policies/devops", "devops.yaml", "/etc/passwd", "policies/devops", " devops", "devops\n", "", "policy.schema"]) {
      const error = thrown(() => resolvePolicyName(name, bundled));
      expect(error.code).toBe(ErrorCode.POLICY);
      expect(error.message).toMatch(/^Policy (name )?".*" is (refused|not one of the server.s policies)/s);
    }
    for (const body of [{ version: 1, permissions: [] }, ["devops"], 1, true]) {
      expect(thrown(() => resolvePolicyName(body, bundled)).message).toBe('configurable.policy must be a policy name (a string such as "devops"), never a policy body.');
    }
  });

  it("refuses a name two files share", () => {
    const dir = tempDir("gg-policies-");
    writeFileSync(join(dir, "team.yaml"), "version: 1\n");
    writeFileSync(join(dir, "team.toml"), "version = 1\n");
    expect(thrown(() => resolvePolicyName("team", dir)).message).toBe('Policy "team" is ambiguous: the server\'s policy directory has team.toml and team.yaml; keep one file per name.');
  });

  it("the name wins over the operator's default; GUARDED_GRAPH_POLICY_DIR replaces the bundled set", () => {
    const dir = tempDir("gg-policies-");
    writeFileSync(join(dir, "strict.yaml"), "version: 1\n");
    expect(platformPolicy("devops", "/default.yaml", undefined, {})).toBe("/default.yaml");
    expect(platformPolicy("devops", "/default.yaml", { configurable: {} }, { GUARDED_GRAPH_POLICY_DEVOPS: "/env.yaml" })).toBe("/env.yaml");
    expect(platformPolicy("devops", "/default.yaml", { configurable: { policy: "strict" } }, { GUARDED_GRAPH_POLICY_DIR: dir })).toBe(join(dir, "strict.yaml"));
    expect(() => platformPolicy("devops", undefined, { configurable: { policy: "devops" } }, { GUARDED_GRAPH_POLICY_DIR: dir })).toThrow(/known: strict\.$/);
  });

  it("through the platform export: an assistant naming a stricter policy gets it, an unknown name is refused before any run", async () => {
    const dir = tempDir("gg-policies-");
    const devops = readFileSync(join(packageRoot(), "policies", "devops.yaml"), "utf8");
    const strict = devops.replace("mode: ask\n    reason: destructive cluster operation", "mode: deny\n    reason: destructive operations are refused on this assistant");
    expect(strict).not.toBe(devops);
    writeFileSync(join(dir, "strict.yaml"), strict);
    process.env.GUARDED_GRAPH_POLICY_DIR = dir;
    process.env.GUARDED_GRAPH_AUDIT = `jsonl:${join(dir, "audit.jsonl")}`;
    process.env.OPENAI_API_KEY = "";
    process.env.OPENAI_BASE_URL = "";
    await expect(devopsGraph({ configurable: { policy: "devops" } })).rejects.toThrow('Policy "devops" is not one of the server\'s policies; known: strict.');
    const compiled = await devopsGraph({ configurable: { policy: "strict" } });
    compiled.checkpointer = new MemorySaver();
    const out = await compiled.invoke({ messages: [new HumanMessage("Tidy up")] }, { configurable: { thread_id: "strict-1" } });
    expect((out as { __interrupt__?: unknown }).__interrupt__).toBeUndefined();
    const refused = (out.messages as BaseMessage[]).filter((m) => m.type === "tool").map((m) => m.text);
    expect(refused.some((text) => text.includes("destructive operations are refused on this assistant"))).toBe(true);
  });
});

describe("memory graph on the store LangGraph Platform injects", () => {
  it("the platform export keeps blocks in the run's store, not in a database under the working directory", async () => {
    const cwdMemory = join(process.cwd(), ".guarded-graph", "memory");
    const before = existsSync(cwdMemory);
    const dir = tempDir("gg-memplat-");
    process.env.GUARDED_GRAPH_MEMORY_DIR = dir;
    process.env.GUARDED_GRAPH_AUDIT = `jsonl:${join(dir, "audit.jsonl")}`;
    process.env.OPENAI_API_KEY = "";
    process.env.OPENAI_BASE_URL = "";
    const compiled = await memoryGraph({ configurable: {} });
    // What langgraph-api's getGraph does with the returned graph before each run.
    const store = new InMemoryStore();
    compiled.store = store;
    compiled.checkpointer = new MemorySaver();
    const out = await compiled.invoke({ messages: [new HumanMessage("Tick the todo")] }, { configurable: { thread_id: "mp-1" } });
    const errors = (out.messages as BaseMessage[]).filter((m) => m.type === "tool" && (m as { status?: string }).status === "error");
    expect(errors.map((m) => m.text)).toEqual([]);
    const blocks = await store.search(["memory-agent", "blocks"], { limit: 100 });
    expect(blocks.length).toBeGreaterThan(0);
    expect(JSON.stringify(blocks.map((b) => b.value))).toContain("tried guarded-graph");
    expect(existsSync(join(dir, "memory.db"))).toBe(false);
    expect(readFileSync(join(dir, "workspace", "notes", "todo.md"), "utf8")).toContain("- [x] tried guarded-graph");
    expect(existsSync(cwdMemory)).toBe(before);
  });

  it("without an injected store the run refuses with the reason, and the workspace file is not changed", async () => {
    // The export's graph is built once per process (the test above holds it): build the same graph here.
    const dir = tempDir("gg-memplat-");
    const ready = await createMemoryGraph({ checkpointer: new MemorySaver(), dataDir: dir, memoryStore: new RunStore(), env: { OPENAI_API_KEY: "", OPENAI_BASE_URL: "" } });
    opened.push(ready);
    const failed = await ready.graph.invoke({ messages: [new HumanMessage("Tick the todo")] }, { configurable: { thread_id: "mp-2" } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(GuardedGraphError);
    expect((failed as GuardedGraphError).code).toBe(ErrorCode.PLATFORM_CONFIG);
    expect((failed as GuardedGraphError).message).toBe(deployMessages.noPlatformStore());
    expect(readFileSync(join(dir, "workspace", "notes", "todo.md"), "utf8")).toBe("# Todo\n- [ ] read the README\n");
  });

  it("createMemoryGraph({ store }) keeps blocks in that store", async () => {
    const dir = tempDir("gg-memstore-");
    const store = new InMemoryStore();
    const ready = await createMemoryGraph({ checkpointer: new MemorySaver(), store, dataDir: dir, env: { OPENAI_API_KEY: "", OPENAI_BASE_URL: "" } });
    opened.push(ready);
    await ready.graph.invoke({ messages: [new HumanMessage("Tick the todo")] }, { configurable: { thread_id: "ms-1" } });
    expect((await store.search(["memory-agent", "blocks"], { limit: 100 })).length).toBeGreaterThan(0);
    expect(existsSync(join(dir, "memory.db"))).toBe(false);
  });
});
