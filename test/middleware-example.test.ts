import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { createOpsAgent, runWithReview } from "../examples/middleware-basic.js";
import type { ApprovalRequest } from "../src/guard/approval/payload.js";
import { toolMessages } from "./helpers/middleware-fixtures.js";

describe("examples/middleware-basic.ts", () => {
  it("lists pods, asks before the delete, and runs it once approved", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "get_pods", args: { namespace: "staging" }, id: "p1" }])
      .respondWithTools([{ name: "delete_deployment", args: { namespace: "staging", name: "web" }, id: "d1" }])
      .respond(new AIMessage("deleted web"));
    const asked: ApprovalRequest[] = [];
    const out = await runWithReview(createOpsAgent(model), "example-approve", "remove web from staging", (request) => {
      asked.push(request);
      return "approve";
    });
    expect(asked.map((r) => r.actionRequests.map((a) => a.name))).toEqual([["delete_deployment"]]);
    expect(toolMessages(out.messages).map((m) => m.content)).toEqual(["pods in staging: web-1, web-2", "deleted staging/web"]);
    expect(out.messages.at(-1)?.content).toBe("deleted web");
  });

  it("a rejected delete never runs; the model is told why", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "get_pods", args: { namespace: "staging" }, id: "p1" }])
      .respondWithTools([{ name: "delete_deployment", args: { namespace: "staging", name: "web" }, id: "d1" }])
      .respond(new AIMessage("left it"));
    const out = await runWithReview(createOpsAgent(model), "example-reject", "remove web", () => "reject");
    const deleted = toolMessages(out.messages).find((m) => m.tool_call_id === "d1");
    expect(deleted?.status).toBe("error");
    expect(deleted?.content).toMatch(/^Refused delete_deployment by a human reviewer/);
  });

  it("MustFollow: a delete before listing the pods is refused without asking", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "delete_deployment", args: { namespace: "staging", name: "web" }, id: "d1" }])
      .respond(new AIMessage("ok"));
    const asked: ApprovalRequest[] = [];
    const out = await runWithReview(createOpsAgent(model), "example-order", "remove web", (r) => {
      asked.push(r);
      return "approve";
    });
    expect(asked).toHaveLength(0);
    expect(toolMessages(out.messages)[0]?.content).toMatch(/MustFollow/);
  });
});

describe("docs/middleware.md", () => {
  it("shows examples/middleware-basic.ts as it is", async () => {
    const doc = await readFile(new URL("../docs/middleware.md", import.meta.url), "utf8");
    const example = await readFile(new URL("../examples/middleware-basic.ts", import.meta.url), "utf8");
    expect(doc).toContain(`<!-- example: examples/middleware-basic.ts -->\n\`\`\`ts\n${example}\`\`\``);
  });
});
