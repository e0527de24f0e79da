// End to end: a real `langgraph dev` server (the pinned CLI, a free port, stopped by the test) and a
// thread driven exactly as LangChain's Agent Chat UI drives it. Read from langchain-ai/agent-chat-ui
// at commit fdc87e65307581b02898d33c62b3f285e56bd85b:
// - src/components/thread/index.tsx `handleSubmit`: `stream.submit({ messages: [...toolMessages, human] },
//   { streamMode: ["values"], streamSubgraphs: true, streamResumable: true })`, the human message's
//   content a list of text blocks with a uuid id;
// - src/providers/Stream.tsx: `useStream({ apiUrl, apiKey, assistantId, onCustomEvent, … })` — the SDK
//   (@langchain/langgraph-sdk react/stream.lgp.js) sends the key as x-api-key, adds the stream modes of
//   what the page reads (values, updates, messages-tuple, custom), and sends `onDisconnect: "continue"`
//   when the stream is resumable;
// - src/components/thread/messages/ai.tsx: the interrupt (`stream.interrupt`, from the last values
//   event's `__interrupt__` through the SDK's `userFacingInterruptsFromValuesArray`) renders as the
//   Agent Inbox form only when src/lib/agent-inbox-interrupt.ts `isAgentInboxInterruptSchema` accepts it;
// - src/components/thread/agent-inbox/hooks/use-interrupted-actions.tsx `resumeRun`:
//   `thread.submit({}, { command: { resume: { decisions } } })` — one decision, edits as `edited_action`.
// The UI's check and decision building are re-implemented faithfully in test/helpers/agent-chat-ui.ts.
import { Client } from "@langchain/langgraph-sdk";
import { userFacingInterruptsFromValuesArray } from "@langchain/langgraph-sdk/ui";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ensureToolCallsHaveResponses, isAgentInboxInterruptSchema, uiResume } from "./helpers/agent-chat-ui.js";
import { CLI_AVAILABLE, startDevServer, type DevServer } from "./helpers/langgraph-dev.js";

const KEY = "ui-test-key-0123456789abcdef";
const USER = "ui-reviewer";
/** The assistant id the UI is configured with (NEXT_PUBLIC_ASSISTANT_ID): the graph id works as one. */
const ASSISTANT = "devops";
/** The modes useStream streams with for the chat page (values from submit; the rest from what the page reads). */
const UI_STREAM_MODES = ["values", "updates", "messages-tuple", "custom"] as const;

interface StreamEvent {
  event: string;
  data: unknown;
}

const interruptSchema = z.object({ id: z.string(), value: z.record(z.string(), z.unknown()) });
const decisionEventSchema = z.object({
  type: z.literal("guarded-graph/decision"),
  source: z.string(),
  decision: z.string(),
  toolCallId: z.string(),
  tool: z.string(),
  ruleId: z.string(),
  actor: z.string().optional(),
});
const messagesSchema = z.array(z.object({ type: z.string(), content: z.unknown(), tool_call_id: z.string().optional() }));

describe.runIf(CLI_AVAILABLE)("Agent Chat UI against langgraph dev: approve, edit (snake_case), reject, a wrong resume then a right one", { timeout: 240_000 }, () => {
  let server: DevServer;
  let client: Client;
  let auditFile: string;
  let dir: string;
  const timings: Record<string, number> = {};

  beforeAll(async () => {
    const started = Date.now();
    dir = mkdtempSync(join(tmpdir(), "gg-lgdev-ui-"));
    auditFile = join(dir, "audit.jsonl");
    server = await startDevServer({ GUARDED_GRAPH_API_KEYS: `${USER}:${KEY}`, GUARDED_GRAPH_AUDIT: `jsonl:${auditFile}` });
    client = new Client({ apiUrl: server.apiUrl, apiKey: KEY });
    timings.serverStart = Date.now() - started;
  }, 150_000);

  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    console.log(`langgraph-dev-ui timings (ms): ${JSON.stringify(timings)}`);
  });

  async function collect(stream: AsyncIterable<{ event: string; data: unknown }>): Promise<StreamEvent[]> {
    const events: StreamEvent[] = [];
    for await (const part of stream) events.push({ event: part.event, data: part.data });
    expect(events.filter((e) => e.event === "error" || e.event.startsWith("error|")), server.output().slice(-3000)).toEqual([]);
    return events;
  }

  /** The chat input: new thread, the UI's message, streamed with its options. */
  async function sendMessage(text: string): Promise<{ threadId: string; events: StreamEvent[] }> {
    const thread = await client.threads.create();
    const human = { id: randomUUID(), type: "human" as const, content: [{ type: "text" as const, text }] };
    const events = await collect(
      client.runs.stream(thread.thread_id, ASSISTANT, {
        input: { messages: [...ensureToolCallsHaveResponses([]), human] },
        streamMode: [...UI_STREAM_MODES],
        streamSubgraphs: true,
        streamResumable: true,
        onDisconnect: "continue",
      }),
    );
    return { threadId: thread.thread_id, events };
  }

  /** A button on the Agent Inbox form: `thread.submit({}, { command: { resume } })`. */
  async function submitResume(threadId: string, resume: unknown): Promise<StreamEvent[]> {
    return collect(
      client.runs.stream(threadId, ASSISTANT, { input: {}, command: { resume }, streamMode: [...UI_STREAM_MODES], onDisconnect: "cancel" }),
    );
  }

  /** What `stream.interrupt` is after the stream: from the last values event, as the SDK's hook computes it. */
  function uiInterrupt(events: StreamEvent[]): unknown {
    const values = events.filter((e) => e.event === "values").at(-1)?.data as { __interrupt__?: unknown[] } | undefined;
    if (!Array.isArray(values?.__interrupt__)) return undefined;
    const all = userFacingInterruptsFromValuesArray(values.__interrupt__ as Parameters<typeof userFacingInterruptsFromValuesArray>[0]);
    return all.length === 1 ? all[0] : all.length === 0 ? undefined : all;
  }

  function decisionEvents(events: StreamEvent[]) {
    return events.filter((e) => e.event === "custom").flatMap((e) => {
      const parsed = decisionEventSchema.safeParse(e.data);
      return parsed.success ? [parsed.data] : [];
    });
  }

  /** Thread status and `thread.interrupts` (as inboxes and threads.search read them). */
  async function threadNow(threadId: string) {
    const thread = await client.threads.get(threadId);
    const interrupts = Object.values(thread.interrupts ?? {}).flat().map((i) => interruptSchema.parse(i));
    return { status: thread.status, interrupts, messages: messagesSchema.parse((thread.values as { messages?: unknown }).messages) };
  }

  async function waitingForApproval(label: string): Promise<{ threadId: string; interrupt: z.infer<typeof interruptSchema> }> {
    const started = Date.now();
    const { threadId, events } = await sendMessage("Tidy up the cluster");
    timings[`${label}:message`] = Date.now() - started;
    const interrupt = uiInterrupt(events);
    // The UI renders the Agent Inbox form (buttons), not the raw JSON table.
    expect(isAgentInboxInterruptSchema(interrupt)).toBe(true);
    const shown = interruptSchema.parse(interrupt);
    // The guard's decisions were in the stream before the interrupt: allow the read, deny production, ask for staging.
    const firstInterruptAt = events.findIndex((e) => e.event === "values" && Array.isArray((e.data as { __interrupt__?: unknown }).__interrupt__));
    const review = decisionEvents(events.slice(0, firstInterruptAt)).filter((d) => d.source === "review");
    expect(review.map((d) => `${d.decision}:${d.tool}:${d.ruleId}`)).toEqual([
      "allow:kubectl_get:permission:k8s-read",
      "deny:kubectl_delete:permission:prod-protected",
      "ask:kubectl_delete:permission:k8s-destructive",
    ]);
    const now = await threadNow(threadId);
    expect(now.status).toBe("interrupted");
    expect(now.interrupts.map((i) => i.id)).toEqual([shown.id]);
    expect((await client.threads.search({ status: "interrupted", limit: 1000 })).map((t) => t.thread_id)).toContain(threadId);
    return { threadId, interrupt: shown };
  }

  function humanAudit(threadId: string) {
    return readFileSync(auditFile, "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as { event: string; threadId: string; decision: string; actor?: string; detail?: Record<string, unknown> })
      .filter((record) => record.event === "human" && record.threadId === threadId);
  }

  it("approve: the form's Approve button runs the call; the thread ends idle with no interrupts; the approver is the key's user", async () => {
    const { threadId, interrupt } = await waitingForApproval("approve");
    // Not a rubber stamp: the SDK's rewrite (normalizeHitlInterruptPayload) copies camelCase
    // reviewConfigs over review_configs, so without action_name on them the UI shows the raw table.
    const configs = z.array(z.record(z.string(), z.unknown())).parse(interrupt.value.reviewConfigs);
    const withoutAlias = { ...interrupt, value: { ...interrupt.value, reviewConfigs: configs.map(({ action_name: _alias, ...rest }) => rest) } };
    const rewritten = userFacingInterruptsFromValuesArray([withoutAlias] as Parameters<typeof userFacingInterruptsFromValuesArray>[0]);
    expect(isAgentInboxInterruptSchema(rewritten[0])).toBe(false);
    const started = Date.now();
    const events = await submitResume(threadId, uiResume(interrupt.value, { type: "approve" }));
    timings["approve:resume"] = Date.now() - started;
    const after = await threadNow(threadId);
    expect([after.status, after.interrupts]).toEqual(["idle", []]);
    expect(after.messages.filter((m) => m.type === "tool").map((m) => String(m.content))).toContain('deployment.apps "worker" deleted');
    expect(decisionEvents(events).filter((d) => d.source === "human").map((d) => `${d.decision}:${d.actor}`)).toEqual([`approve:${USER}`]);
    expect(humanAudit(threadId).map((r) => `${r.decision}:${r.actor}`)).toEqual([`approve:${USER}`]);
  });

  it("edit: the form sends edited_action (snake_case); the edited call is reviewed again and runs", async () => {
    const { threadId, interrupt } = await waitingForApproval("edit");
    const resume = uiResume(interrupt.value, { type: "edit", args: { resource: "deployment", name: "api", namespace: "staging" } });
    expect(resume).toEqual({ decisions: [{ type: "edit", edited_action: { name: "kubectl_delete", args: { resource: "deployment", name: "api", namespace: "staging" } } }] });
    const started = Date.now();
    await submitResume(threadId, resume);
    timings["edit:resume"] = Date.now() - started;
    const after = await threadNow(threadId);
    expect([after.status, after.interrupts]).toEqual(["idle", []]);
    expect(after.messages.filter((m) => m.type === "tool").map((m) => String(m.content))).toContain('deployment.apps "api" deleted');
    expect(humanAudit(threadId).map((r) => r.decision)).toEqual(["edit"]);
  });

  it("reject: the call does not run, the model reads the reason; idle with no interrupts", async () => {
    const { threadId, interrupt } = await waitingForApproval("reject");
    const started = Date.now();
    await submitResume(threadId, uiResume(interrupt.value, { type: "reject", message: "not during the release freeze" }));
    timings["reject:resume"] = Date.now() - started;
    const after = await threadNow(threadId);
    expect([after.status, after.interrupts]).toEqual(["idle", []]);
    const results = after.messages.filter((m) => m.type === "tool").map((m) => String(m.content));
    expect(results.some((text) => text.includes("not during the release freeze"))).toBe(true);
    expect(results.some((text) => /deployment\.apps "worker" deleted/.test(text))).toBe(false);
    expect(humanAudit(threadId).map((r) => r.decision)).toEqual(["reject"]);
  });

  it("a wrong resume keeps the thread interrupted with its interrupt, the form shows the error; the right one then completes it", async () => {
    const { threadId, interrupt } = await waitingForApproval("wrong-then-right");
    const wrongs: unknown[] = [
      { decisions: [] },
      { decisions: [{ type: "edit", edited_action: { name: "kubectl_delete" } }] },
      { decisions: [{ type: "maybe" }] },
      "approve",
    ];
    let current = interrupt;
    for (const wrong of wrongs) {
      const started = Date.now();
      const events = await submitResume(threadId, wrong);
      timings[`wrong:${JSON.stringify(wrong).slice(0, 24)}`] = Date.now() - started;
      const now = await threadNow(threadId);
      expect(now.status, JSON.stringify(wrong)).toBe("interrupted");
      expect(now.interrupts).toHaveLength(1);
      const asked = uiInterrupt(events);
      expect(isAgentInboxInterruptSchema(asked), JSON.stringify(wrong)).toBe(true);
      current = interruptSchema.parse(asked);
      expect(now.interrupts[0]?.id).toBe(current.id);
      const description = z.object({ action_requests: z.array(z.object({ description: z.string() })) }).parse(current.value).action_requests[0]?.description;
      expect(description).toMatch(/^Your last answer was refused and nothing was done: /);
      expect(z.object({ error: z.string() }).parse(current.value).error).toMatch(/invalid approval resume/);
      expect(now.messages.filter((m) => m.type === "tool").some((m) => /deployment\.apps "worker" deleted/.test(String(m.content)))).toBe(false);
    }
    expect((await client.threads.search({ status: "interrupted", limit: 1000 })).map((t) => t.thread_id)).toContain(threadId);
    const started = Date.now();
    await submitResume(threadId, uiResume(current.value, { type: "reject", message: "checked the wrong cluster" }));
    timings["wrong-then-right:right"] = Date.now() - started;
    const after = await threadNow(threadId);
    expect([after.status, after.interrupts]).toEqual(["idle", []]);
    expect(humanAudit(threadId).map((r) => r.decision)).toEqual(["reject"]);
  });

  it("identity: a resume claiming another actor is audited as the key's user, the claim kept as a claim", async () => {
    const { threadId } = await waitingForApproval("identity");
    await submitResume(threadId, { decisions: [{ type: "approve" }], actor: "the-boss" });
    const records = humanAudit(threadId);
    expect(records.map((r) => r.actor)).toEqual([USER]);
    expect(records[0]?.detail).toEqual(expect.objectContaining({ actorSource: "langgraph_auth_user", claimedActor: "the-boss" }));
  });

  it("typing in the chat while the approval waits: the UI's 'Successfully handled tool call.' is never taken as the result; the call is refused and audited", async () => {
    const { threadId } = await waitingForApproval("typed");
    // handleSubmit: ensureToolCallsHaveResponses(stream.messages) before the new human message.
    const uiMessages = z
      .array(z.object({ type: z.string(), id: z.string().optional(), tool_calls: z.array(z.object({ id: z.string().optional(), name: z.string() })).optional() }))
      .parse(((await client.threads.get(threadId)).values as { messages?: unknown }).messages);
    const pendingId = uiMessages.filter((m) => m.type === "ai").at(-1)?.tool_calls?.[0]?.id;
    expect(pendingId).toBeTruthy();
    const added = ensureToolCallsHaveResponses(uiMessages);
    expect(added.map((m) => [m.tool_call_id, m.content])).toEqual([[pendingId, "Successfully handled tool call."]]);
    const human = { id: randomUUID(), type: "human" as const, content: [{ type: "text" as const, text: "approve" }] };
    const started = Date.now();
    await collect(
      client.runs.stream(threadId, ASSISTANT, {
        input: { messages: [...added, human] },
        streamMode: [...UI_STREAM_MODES],
        streamSubgraphs: true,
        streamResumable: true,
        onDisconnect: "continue",
      }),
    );
    timings["typed:message"] = Date.now() - started;
    const after = await threadNow(threadId);
    expect(after.status).not.toBe("error");
    const results = after.messages.filter((m) => m.type === "tool" && m.tool_call_id === pendingId).map((m) => String(m.content));
    expect(results).toHaveLength(1);
    expect(results[0]).toMatch(/^Refused kubectl_delete by rule approval:superseded: /);
    expect(after.messages.some((m) => String(m.content) === "Successfully handled tool call.")).toBe(false);
    const audited = readFileSync(auditFile, "utf8").split("\n").filter((line) => line.includes(threadId) && line.includes("approval:superseded"));
    expect(audited.length).toBeGreaterThan(0);
  });
});
