// MCP tools guarded as they come: a real MCP server (the official SDK's McpServer, test/fixtures/mcp)
// started by the test over stdio and over streamable HTTP on 127.0.0.1, its tools loaded with
// @langchain/mcp-adapters (named mcp__fs__TOOL), run through createGuardedAgent, GuardedToolNode and
// guardMiddleware. What ran is read from the server's own log of calls (calls.jsonl in its sandbox).
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Command, END, MemorySaver, MessagesValue, START, StateGraph, StateSchema } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGuardedAgent } from "../src/guard/agent.js";
import type { ApprovalRequest } from "../src/guard/approval/payload.js";
import { guardFromPolicy } from "../src/guard/from-policy.js";
import { Guard } from "../src/guard/guard.js";
import type { GuardOptions } from "../src/guard/options.js";
import { GuardStateFields } from "../src/guard/state.js";
import { GuardedToolNode, guardedToolsRoute } from "../src/guard/tool-node.js";
import { guardMiddleware } from "../src/middleware/guard-middleware.js";
import { connectMcpTools, type McpTools } from "../src/mcp/client.js";
import { MCP_TOOL_NAMING } from "../src/mcp/annotations.js";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";
import { parsePermissionRules, PermissionPolicy } from "../src/policy/permissions.js";
import { GuardConfigError } from "../src/errors/index.js";
import { startHttpServer, type HttpFixture } from "./fixtures/mcp/fs-server.js";
import { toolMessages } from "./helpers/middleware-fixtures.js";
import { nodeArgsFor } from "./helpers/ts-entry.js";

const SERVER = fileURLToPath(new URL("./fixtures/mcp/fs-server.ts", import.meta.url));

interface Call {
  tool: string;
  args: { path?: string; url?: string };
  started: number;
  ended: number;
}

/** The calls that reached the server (its own log), optionally only those on paths under `prefix`. */
function serverCalls(root: string, prefix?: string): Call[] {
  const file = join(root, "calls.jsonl");
  if (!existsSync(file)) return [];
  const calls = readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as Call);
  return prefix === undefined ? calls : calls.filter((c) => (c.args.path ?? "").startsWith(prefix));
}

/** How long two calls ran at the same time (ms); ≤ 0 when one ended before the other started. */
function overlapMs(a: Call, b: Call): number {
  return Math.min(a.ended, b.ended) - Math.max(a.started, b.started);
}

const thread = (id: string) => ({ configurable: { thread_id: id } });

function interruptOf(result: unknown): ApprovalRequest | undefined {
  return (result as { __interrupt__?: { value: ApprovalRequest }[] }).__interrupt__?.[0]?.value;
}

function files(root: string, dir: string, names: string[]): string[] {
  return names.map((name) => {
    const path = join(root, `${dir}-${name}`);
    writeFileSync(path, `content of ${name}`);
    return path;
  });
}

const transports = ["stdio", "http"] as const;

describe.each(transports)("MCP tools over %s", (transport) => {
  let root: string;
  let mcp: McpTools;
  let http: HttpFixture | undefined;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), `gg-mcp-${transport}-`));
    if (transport === "http") http = await startHttpServer(root);
    mcp = await connectMcpTools({
      mcpServers: {
        fs: http !== undefined ? { type: "http", url: http.url } : { command: process.execPath, args: nodeArgsFor(SERVER, root) },
      },
    });
  }, 120_000);

  afterAll(async () => {
    await mcp?.close();
    await http?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const agent = (model: ReturnType<typeof fakeModel>, options: Partial<GuardOptions> = {}) =>
    createGuardedAgent({ model, tools: mcp.tools, checkpointer: new MemorySaver(), ...options });

  it("loads the server's tools as mcp__fs__TOOL", () => {
    expect(mcp.tools.map((t) => t.name).sort()).toEqual(["mcp__fs__delete_file", "mcp__fs__describe_url", "mcp__fs__read_file", "mcp__fs__tidy_file"]);
  });

  it("annotations set parallelism: two read-only calls of a trusted server overlap; of an untrusted one they run one at a time", async () => {
    const [a, b] = files(root, "par-trusted", ["a", "b"]);
    const [c, d] = files(root, "par-untrusted", ["c", "d"]);
    const reads = (x: string, y: string) =>
      fakeModel()
        .respondWithTools([
          { name: "mcp__fs__read_file", args: { path: x }, id: "r1" },
          { name: "mcp__fs__read_file", args: { path: y }, id: "r2" },
        ])
        .respond(new AIMessage("read both"));

    const trusted = await agent(reads(a!, b!), { mcp: { trustAnnotations: ["fs"] } }).invoke({ messages: [new HumanMessage("read")] }, thread(`par-t-${transport}`));
    expect(interruptOf(trusted)).toBeUndefined();
    expect(toolMessages(trusted.messages).map((m) => m.content)).toEqual(["content of a", "content of b"]);
    const [t1, t2] = serverCalls(root, join(root, "par-trusted"));
    // Each read takes 300 ms on the server. Run one after the other (the guard waits for a call's
    // result before starting the next) they cannot overlap at all; run together they do (by most of
    // the 300 ms on an idle machine; the HTTP transport's per-request set-up eats into it under load).
    expect(overlapMs(t1!, t2!)).toBeGreaterThan(0);

    // Untrusted: readOnlyHint gives nothing; defaultRisk low lets the calls run without asking.
    const untrusted = await agent(reads(c!, d!), { defaultRisk: "low" }).invoke({ messages: [new HumanMessage("read")] }, thread(`par-u-${transport}`));
    expect(interruptOf(untrusted)).toBeUndefined();
    expect(toolMessages(untrusted.messages).map((m) => m.content)).toEqual(["content of c", "content of d"]);
    const [u1, u2] = serverCalls(root, join(root, "par-untrusted"));
    expect(overlapMs(u1!, u2!)).toBeLessThanOrEqual(0);
  });

  it("annotations set risk: the destructive tool asks under the default policy (risk:high), and still asks where defaultRisk lets every other tool run", async () => {
    const [victim] = files(root, "destructive", ["x"]);
    const model = () =>
      fakeModel()
        .respondWithTools([{ name: "mcp__fs__delete_file", args: { path: victim }, id: "d1" }])
        .respond(new AIMessage("deleted"));
    for (const options of [{}, { defaultRisk: "low" as const }]) {
      const graph = agent(model(), options);
      const config = thread(`destructive-${transport}-${JSON.stringify(options)}`);
      const asked = interruptOf(await graph.invoke({ messages: [new HumanMessage("delete")] }, config));
      expect(asked?.actionRequests.map((r) => [r.name, r.ruleId, r.risk])).toEqual([["mcp__fs__delete_file", "risk:high", "high"]]);
      expect(existsSync(victim!)).toBe(true);
      expect(serverCalls(root, victim)).toEqual([]);
      if ("defaultRisk" in options) {
        // Approved: it runs on the real server and the file is gone.
        const done = await graph.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config);
        expect(toolMessages(done.messages).at(-1)?.content).toBe(`deleted ${victim}`);
        expect(existsSync(victim!)).toBe(false);
      }
    }
    // A read of the same untrusted server under defaultRisk low runs without asking.
    const [note] = files(root, "destructive-read", ["n"]);
    const read = await agent(fakeModel().respondWithTools([{ name: "mcp__fs__read_file", args: { path: note }, id: "r" }]).respond(new AIMessage("ok")), { defaultRisk: "low" }).invoke(
      { messages: [new HumanMessage("read")] },
      thread(`destructive-read-${transport}`),
    );
    expect(interruptOf(read)).toBeUndefined();
  });

  it("a server that claims readOnlyHint on a destructive tool gains nothing unless trusted: no lower risk, no parallel run", async () => {
    const guard = new Guard({ tools: mcp.tools });
    // Like a tool that declares nothing: no risk, not concurrency-safe, not idempotent.
    expect(guard.declaredRisk("mcp__fs__tidy_file")).toBeUndefined();
    expect(guard.spec("mcp__fs__tidy_file")?.isConcurrencySafe({ path: "x" })).toBe(false);
    expect(guard.spec("mcp__fs__tidy_file")?.idempotent).toBe(false);

    // Under the default policy it asks as an undeclared tool does (default:ask), not as a low-risk one.
    const [first] = files(root, "liar-ask", ["f"]);
    const asked = interruptOf(
      await agent(fakeModel().respondWithTools([{ name: "mcp__fs__tidy_file", args: { path: first }, id: "t" }]).respond(new AIMessage("ok"))).invoke(
        { messages: [new HumanMessage("tidy")] },
        thread(`liar-ask-${transport}`),
      ),
    );
    expect(asked?.actionRequests.map((r) => r.ruleId)).toEqual(["default:ask"]);
    expect(existsSync(first!)).toBe(true);

    // With defaultRisk medium the calls run, but one at a time.
    const [a, b] = files(root, "liar-seq", ["a", "b"]);
    const two = (x: string, y: string) =>
      fakeModel()
        .respondWithTools([
          { name: "mcp__fs__tidy_file", args: { path: x }, id: "t1" },
          { name: "mcp__fs__tidy_file", args: { path: y }, id: "t2" },
        ])
        .respond(new AIMessage("ok"));
    await agent(two(a!, b!), { defaultRisk: "medium" }).invoke({ messages: [new HumanMessage("tidy")] }, thread(`liar-seq-${transport}`));
    const [s1, s2] = serverCalls(root, join(root, "liar-seq"));
    expect(overlapMs(s1!, s2!)).toBeLessThanOrEqual(0);

    // Trusting the server is what gives the claim weight: then the lie runs unasked and in parallel.
    const trusted = new Guard({ tools: mcp.tools, mcp: { trustAnnotations: ["fs"] } });
    expect(trusted.declaredRisk("mcp__fs__tidy_file")).toBe("low");
    const [c, d] = files(root, "liar-par", ["c", "d"]);
    const out = await agent(two(c!, d!), { mcp: { trustAnnotations: ["fs"] } }).invoke({ messages: [new HumanMessage("tidy")] }, thread(`liar-par-${transport}`));
    expect(interruptOf(out)).toBeUndefined();
    const [p1, p2] = serverCalls(root, join(root, "liar-par"));
    expect(overlapMs(p1!, p2!)).toBeGreaterThan(0);
    expect(existsSync(c!)).toBe(false);
  });

  it("rules on mcp__fs__delete_file and its path hold (compact and where form): /etc is denied before the server sees it, a scratch folder is allowed without asking", async () => {
    // Compact rules as a policy file writes them, read by the same parser.
    const policy = new PermissionPolicy(
      parsePermissionRules([
        { id: "no-etc", rule: "mcp__fs__delete_file(path:/etc/**)", mode: "deny", reason: "system files" },
        { id: "no-etc-where", tool: "mcp__fs__{delete,tidy}_file", where: { path: { path: "/usr/**" } }, mode: "deny" },
        { id: "scratch", rule: `mcp__fs__delete_file(path:${root}/scratch-*)`, mode: "allow" },
      ]),
    );
    const [scratch] = files(root, "scratch", ["s"]);
    const model = fakeModel()
      .respondWithTools([
        { name: "mcp__fs__delete_file", args: { path: "/etc/hosts" }, id: "etc" },
        { name: "mcp__fs__tidy_file", args: { path: "/usr/../usr/lib/os-release" }, id: "usr" },
        { name: "mcp__fs__delete_file", args: { path: scratch }, id: "scratch" },
      ])
      .respond(new AIMessage("done"));
    const out = await agent(model, { permissions: policy }).invoke({ messages: [new HumanMessage("clean")] }, thread(`rules-${transport}`));
    expect(interruptOf(out)).toBeUndefined();
    const byId = new Map(toolMessages(out.messages).map((m) => [m.tool_call_id, m]));
    expect(byId.get("etc")?.status).toBe("error");
    expect(byId.get("etc")?.content).toMatch(/no-etc/);
    expect(byId.get("usr")?.content).toMatch(/no-etc-where/);
    expect(byId.get("scratch")?.content).toBe(`deleted ${scratch}`);
    expect(existsSync(scratch!)).toBe(false);
    expect(serverCalls(root).filter((c) => c.args.path === "/etc/hosts" || (c.args.path ?? "").startsWith("/usr"))).toEqual([]);
  });
  it("a rule on the server (`mcp__fs`, as Claude Code writes it) holds for every tool the server gives, and for no other server's", async () => {
    const policy = new PermissionPolicy(parsePermissionRules([{ id: "no-fs", rule: "mcp__fs", mode: "deny", reason: "the fs server is off" }]));
    for (const tool of mcp.tools) expect(policy.decide(tool.name, {}, "low").ruleId, tool.name).toBe("permission:no-fs");
    const two = new PermissionPolicy(parsePermissionRules([{ id: "no-fsx", tool: "mcp__fsx", mode: "deny" }, { id: "fs", tool: "mcp__fs", mode: "allow" }]));
    expect(two.decide("mcp__fsx__read_file", {}, "high").ruleId).toBe("permission:no-fsx");
    expect(two.decide("mcp__fs__read_file", {}, "high").ruleId).toBe("permission:fs");
    expect(two.decide("mcp__fsxy__read_file", {}, "high").mode).toBe("ask");
    const [kept] = files(root, "server-wide", ["k"]);
    const model = fakeModel()
      .respondWithTools([{ name: "mcp__fs__delete_file", args: { path: kept }, id: "del" }])
      .respond(new AIMessage("done"));
    const out = await agent(model, { permissions: policy }).invoke({ messages: [new HumanMessage("clean")] }, thread(`server-wide-${transport}`));
    expect(toolMessages(out.messages)[0]?.content).toMatch(/no-fs/);
    expect(existsSync(kept!)).toBe(true);
    expect(serverCalls(root, join(root, "server-wide"))).toEqual([]);
  });
});

describe("MCP deny and ask through each entry point (stdio server)", () => {
  let root: string;
  let mcp: McpTools;
  const rules = () =>
    new PermissionPolicy(
      parsePermissionRules([
        { id: "no-etc", rule: "mcp__fs__delete_file(path:/etc/**)", mode: "deny" },
        { id: "no-etc-where", tool: "mcp__fs__delete_file", where: { path: { path: "/var/**" } }, mode: "deny" },
      ]),
    );

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "gg-mcp-entry-"));
    mcp = await connectMcpTools({ mcpServers: { fs: { command: process.execPath, args: nodeArgsFor(SERVER, root) } } });
  }, 120_000);

  afterAll(async () => {
    await mcp?.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** One turn: delete /etc/passwd (deny, compact), /var/log/syslog (deny, where), a sandbox file (ask: destructiveHint). */
  const turn = (victim: string) =>
    fakeModel()
      .respondWithTools([
        { name: "mcp__fs__delete_file", args: { path: "/etc/passwd" }, id: "etc" },
        { name: "mcp__fs__delete_file", args: { path: "/var/log/syslog" }, id: "var" },
        { name: "mcp__fs__delete_file", args: { path: victim }, id: "mine" },
      ])
      .respond(new AIMessage("done"));

  interface Invocable {
    invoke(input: unknown, config: { configurable: { thread_id: string } }): Promise<unknown>;
  }

  /** The turn: the two /etc and /var deletes are refused by their rules, the sandbox one asks (risk:high); rejected, nothing reached the server. */
  async function expectDeniedAndAsked(build: (model: ReturnType<typeof fakeModel>) => Invocable, name: string) {
    const [victim] = files(root, name, ["v"]);
    const graph = build(turn(victim!));
    const config = thread(name);
    const asked = interruptOf(await graph.invoke({ messages: [new HumanMessage("clean")] }, config));
    expect(asked?.actionRequests.map((r) => [r.toolCallId, r.ruleId, r.risk])).toEqual([["mine", "risk:high", "high"]]);
    const done = (await graph.invoke(new Command({ resume: { decisions: [{ type: "reject" }] } }), config)) as { messages: BaseMessage[] };
    const answers = toolMessages(done.messages).map((m) => [m.tool_call_id, m.status, String(m.content)] as const);
    expect(answers.map(([id, status]) => [id, status]).sort()).toEqual([
      ["etc", "error"],
      ["mine", "error"],
      ["var", "error"],
    ]);
    const text = new Map(answers.map(([id, , content]) => [id, content]));
    expect(text.get("etc")).toMatch(/no-etc\b/);
    expect(text.get("var")).toMatch(/no-etc-where/);
    expect(text.get("mine")).toMatch(/human reviewer/);
    expect(existsSync(victim!)).toBe(true);
    expect(serverCalls(root)).toEqual([]);
  }

  it("createGuardedAgent", async () => {
    await expectDeniedAndAsked((model) => createGuardedAgent({ model, tools: mcp.tools, permissions: rules(), checkpointer: new MemorySaver() }), "entry-agent");
  });

  it("GuardedToolNode", async () => {
    await expectDeniedAndAsked((model) => {
      const State = new StateSchema({ messages: MessagesValue, ...GuardStateFields });
      const node = new GuardedToolNode({ tools: mcp.tools, permissions: rules() });
      const bound = model.bindTools(mcp.tools);
      return new StateGraph(State)
        .addNode("agent", async (state) => ({ messages: [await bound.invoke(state.messages)] }))
        .addNode("tools", node)
        .addEdge(START, "agent")
        .addConditionalEdges("agent", (state) => ((state.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
        .addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END])
        .compile({ checkpointer: new MemorySaver() });
    }, "entry-node");
  });

  it("guardMiddleware", async () => {
    await expectDeniedAndAsked(
      (model) => createAgent({ model, middleware: [guardMiddleware({ tools: mcp.tools, permissions: rules() })], checkpointer: new MemorySaver() }) as unknown as Invocable,
      "entry-mw",
    );
  });
});

describe("MCP annotations: what stricter-only means", () => {
  let root: string;
  let mcp: McpTools;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "gg-mcp-strict-"));
    mcp = await connectMcpTools({ mcpServers: { fs: { command: process.execPath, args: nodeArgsFor(SERVER, root) } } });
  }, 120_000);

  afterAll(async () => {
    await mcp?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("untrusted: destructiveHint raises to high, never below the policy's defaultRisk decision; readOnlyHint and idempotentHint give nothing", () => {
    const plain = new Guard({ tools: mcp.tools });
    expect(["read_file", "delete_file", "tidy_file", "describe_url"].map((t) => plain.declaredRisk(`mcp__fs__${t}`))).toEqual([undefined, "high", undefined, undefined]);
    expect(plain.spec("mcp__fs__read_file")?.isConcurrencySafe({ path: "x" })).toBe(false);
    expect(plain.spec("mcp__fs__delete_file")?.idempotent).toBe(false);
    // defaultRisk always-deny: a destructive claim must not turn a deny into an ask.
    expect(new Guard({ tools: mcp.tools, defaultRisk: "always-deny" }).declaredRisk("mcp__fs__delete_file")).toBe("always-deny");
    expect(new Guard({ tools: mcp.tools, defaultRisk: "medium" }).declaredRisk("mcp__fs__delete_file")).toBe("high");
    // The same when the defaultRisk is a PermissionPolicy's own: the call is denied, not asked.
    const policy = new PermissionPolicy([], { defaultRisk: "always-deny" });
    const guarded = new Guard({ tools: mcp.tools, permissions: policy });
    expect(policy.decide("mcp__fs__delete_file", { path: "/x" }, guarded.declaredRisk("mcp__fs__delete_file")).mode).toBe("deny");
    // A policy whose high risk allows: "high" would relax an undeclared tool's ask, so it is not applied.
    expect(new Guard({ tools: mcp.tools, riskModes: { high: "allow" } }).declaredRisk("mcp__fs__delete_file")).toBeUndefined();
    // The policy may raise, and lowers only with lowerRisk.
    expect(new Guard({ tools: mcp.tools, toolRisk: { mcp__fs__delete_file: "low" } }).declaredRisk("mcp__fs__delete_file")).toBe("high");
    expect(new Guard({ tools: mcp.tools, toolRisk: { mcp__fs__delete_file: "low" }, lowerRisk: ["mcp__fs__delete_file"] }).declaredRisk("mcp__fs__delete_file")).toBe("low");
  });

  it("trusted: readOnlyHint → low and concurrency-safe, destructiveHint → high, idempotentHint → idempotent", () => {
    const guard = new Guard({ tools: mcp.tools, mcp: { trustAnnotations: ["fs"] }, defaultRisk: "always-deny" });
    expect(["read_file", "delete_file", "tidy_file", "describe_url"].map((t) => guard.declaredRisk(`mcp__fs__${t}`))).toEqual(["low", "high", "low", "low"]);
    expect(guard.spec("mcp__fs__read_file")?.isConcurrencySafe({ path: "x" })).toBe(true);
    expect(guard.spec("mcp__fs__delete_file")?.isConcurrencySafe({ path: "x" })).toBe(false);
    expect(guard.spec("mcp__fs__delete_file")?.idempotent).toBe(true);
    expect(guard.spec("mcp__fs__describe_url")?.idempotent).toBe(false);
  });

  it("trustAnnotations naming a server with no tools, or one whose name cannot appear in a tool name, is a configuration error", () => {
    expect(() => new Guard({ tools: mcp.tools, mcp: { trustAnnotations: ["fss"] } })).toThrow(GuardConfigError);
    expect(() => new Guard({ tools: mcp.tools, mcp: { trustAnnotations: ["fss"] } })).toThrow(/no tool is named mcp__fss__TOOL \(known servers: fs\)/);
    expect(() => new Guard({ tools: mcp.tools, mcp: { trustAnnotations: ["a__b"] } })).toThrow(/contains "__"/);
  });

  it("MultiServerMCPClient built by hand: with MCP_TOOL_NAMING the tools are mcp__fs__TOOL; with the adapters' default bare names no server can be trusted", async () => {
    const server = { fs: { command: process.execPath, args: nodeArgsFor(SERVER, root) } };
    const named = new MultiServerMCPClient({ mcpServers: server, ...MCP_TOOL_NAMING });
    const bare = new MultiServerMCPClient({ mcpServers: server });
    try {
      const namedTools = await named.getTools();
      expect(namedTools.map((t) => t.name).sort()).toEqual(mcp.tools.map((t) => t.name).sort());
      expect(new Guard({ tools: namedTools, mcp: { trustAnnotations: ["fs"] } }).declaredRisk("mcp__fs__read_file")).toBe("low");
      const bareTools = await bare.getTools();
      expect(bareTools.map((t) => t.name).sort()).toEqual(["delete_file", "describe_url", "read_file", "tidy_file"]);
      // Still MCP tools: the stricter-only defaults hold (destructiveHint → high), the relaxing hints are not read.
      const guard = new Guard({ tools: bareTools });
      expect([guard.declaredRisk("delete_file"), guard.declaredRisk("read_file"), guard.spec("read_file")?.isConcurrencySafe({})]).toEqual(["high", undefined, false]);
      expect(() => new Guard({ tools: bareTools, mcp: { trustAnnotations: ["fs"] } })).toThrow(/no tool is named mcp__fs__TOOL .*MCP tools without a server in their name: read_file/);
    } finally {
      await named.close();
      await bare.close();
    }
  }, 120_000);

  it("a policy file's mcp.trustAnnotations trusts the server; without it the same tools stay strict", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gg-mcp-policy-"));
    try {
      const trusting = join(dir, "trusting.yaml");
      writeFileSync(trusting, "mcp:\n  trustAnnotations: [fs]\npermissions:\n  - { rule: 'mcp__fs__delete_file(path:/etc/**)', mode: deny }\n");
      const strict = join(dir, "strict.yaml");
      writeFileSync(strict, "permissions:\n  - { rule: 'mcp__fs__delete_file(path:/etc/**)', mode: deny }\n");
      const a = await guardFromPolicy(trusting, { tools: mcp.tools });
      const b = await guardFromPolicy(strict, { tools: mcp.tools });
      expect([a.guard.declaredRisk("mcp__fs__read_file"), a.guard.spec("mcp__fs__read_file")?.isConcurrencySafe({})]).toEqual(["low", true]);
      expect([b.guard.declaredRisk("mcp__fs__read_file"), b.guard.spec("mcp__fs__read_file")?.isConcurrencySafe({})]).toEqual([undefined, false]);
      await a.close();
      await b.close();
      const wrong = join(dir, "wrong.yaml");
      writeFileSync(wrong, "mcp:\n  trustAnnotations: [github]\n");
      await expect(guardFromPolicy(wrong, { tools: mcp.tools })).rejects.toThrow(/github/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a watched policy file's change of mcp.trustAnnotations takes effect with the rest of the file; a bad one is rejected and the old trust stays", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gg-mcp-watch-"));
    const path = join(dir, "policy.yaml");
    writeFileSync(path, "mcp:\n  trustAnnotations: [fs]\n");
    const ready = await guardFromPolicy(path, { tools: mcp.tools, watch: { log: () => undefined } });
    try {
      const state = () => [ready.guard.declaredRisk("mcp__fs__read_file"), ready.guard.spec("mcp__fs__read_file")?.isConcurrencySafe({})];
      expect(state()).toEqual(["low", true]);
      writeFileSync(path, "defaultRisk: medium\n");
      expect((await ready.watcher!.reload()).kind).toBe("applied");
      expect(state()).toEqual(["medium", false]);
      writeFileSync(path, "mcp:\n  trustAnnotations: [fs]\n");
      expect((await ready.watcher!.reload()).kind).toBe("applied");
      expect(state()).toEqual(["low", true]);
      writeFileSync(path, "mcp:\n  trustAnnotations: [gihtub]\n");
      const rejected = await ready.watcher!.reload();
      expect([rejected.kind, rejected.message]).toEqual(["rejected", expect.stringMatching(/gihtub/)]);
      expect(state()).toEqual(["low", true]);
    } finally {
      await ready.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
