import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import { createGuardedAgent, defineTool, guardFromPolicy, loadPolicyFile, openAuditSink, replayAudit, summariseReplay, summariseShadow } from "guarded-graph";
import { ScriptedChatModel } from "guarded-graph/testing";

/**
 * Rolling out a stricter policy: the new rule runs in shadow first (decided and audited, never
 * enforced), then the candidate policy is replayed over what the agents actually did.
 */
export async function rolloutExample(dir: string) {
  // In force: deletions in production are denied. In shadow: deploys to production would be too.
  writeFileSync(
    join(dir, "policy.yaml"),
    `permissions:
  - { id: prod-delete, rule: "kubectl_delete(namespace:production)", mode: deny }
  - { id: prod-deploy, rule: "kubectl_deploy(namespace:production)", mode: deny, shadow: true, reason: production is frozen }
`,
  );
  // The candidate: the shadow rule enforced, and one deploy per run.
  writeFileSync(
    join(dir, "candidate.yaml"),
    `permissions:
  - { id: prod-delete, rule: "kubectl_delete(namespace:production)", mode: deny }
  - { id: prod-deploy, rule: "kubectl_deploy(namespace:production)", mode: deny, reason: production is frozen }
tool_rules:
  - { tool: kubectl_deploy, type: MaxCalls, max: 1, scope: run }
`,
  );

  const schema = z.object({ namespace: z.string(), name: z.string() });
  const tools = [
    defineTool({ name: "kubectl_deploy", description: "Deploy an app", schema, risk: "medium", execute: ({ name, namespace }) => `deployed ${name} to ${namespace}` }),
    defineTool({ name: "kubectl_delete", description: "Delete an app", schema, risk: "medium", execute: ({ name, namespace }) => `deleted ${name} in ${namespace}` }),
  ];
  const audit = await openAuditSink(`jsonl:${join(dir, "audit.jsonl")}`);
  const { guard, close } = await guardFromPolicy(join(dir, "policy.yaml"), { tools, audit });

  // What the agent does (a scripted model here; your model in production).
  const call = (name: string, namespace: string, app: string) => ({ name, args: { namespace, name: app } });
  const model = new ScriptedChatModel({
    scenario: {
      name: "rollout",
      turns: [
        { tool_calls: [call("kubectl_deploy", "staging", "web"), call("kubectl_deploy", "production", "web")] },
        { tool_calls: [call("kubectl_deploy", "staging", "api"), call("kubectl_delete", "production", "old")] },
        { text: "done" },
      ],
    },
  });
  const agent = createGuardedAgent({ model, guard, checkpointer: new MemorySaver() });
  await agent.invoke({ messages: [new HumanMessage("ship web and api")] }, { configurable: { thread_id: "rollout-1" } });
  await close();

  // 1. Shadow: what the shadow rule would have changed (`guarded-graph audit --shadow`).
  const records = await audit.query({});
  const shadow = summariseShadow(records);

  // 2. Replay: the candidate decided over every recorded call (`guarded-graph policy replay`).
  const replayed = await replayAudit(records, await loadPolicyFile(join(dir, "candidate.yaml")));
  await audit.close();
  const summary = summariseReplay(replayed);
  return {
    shadow: { changed: shadow.changed, byRule: Object.fromEntries(shadow.byRule) },
    replay: { changed: summary.changed, byChange: Object.fromEntries(summary.byChange), byRule: Object.fromEntries(summary.byRule) },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await rolloutExample(mkdtempSync(join(tmpdir(), "rollout-"))), null, 2));
}
