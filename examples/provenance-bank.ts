// Provenance: pay the IBAN the user typed, ask before paying one that only a file or an email named.
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { fileURLToPath } from "node:url";
import { parsePolicy, permissionPolicy } from "guarded-graph";

const policy = permissionPolicy(
  parsePolicy(
    `
provenance:
  trusted: [get_iban]                      # outputs as good as what the user wrote
  untrusted: [read_file]                   # outputs that carry text from outside
permissions:
  - id: recipient-untraced
    tool: send_money
    where: { recipient: { not: { from: [user, trusted] } } }
    mode: ask
    reason: the recipient was not given by the user
  - { id: too-much, tool: send_money, budget: { sum: amount, max: 5000 }, mode: deny }
  - { id: pay, tool: send_money, where: { amount: { lte: 1000 } }, mode: allow }
`,
    "yaml",
    "bank.yaml",
  ),
);

export function provenanceExample() {
  // The thread as the guard sees it: what the user typed, and what a tool returned.
  const messages = [
    new HumanMessage({ id: "h1", content: "Pay the bill in bill.txt, and send 50 to my friend GB29 NWBK 6016 1331 9268 19." }),
    new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "read_file", args: { file_path: "bill.txt" } }] }),
    new ToolMessage({ tool_call_id: "call_1", name: "read_file", content: "Total 98.70. Pay to IBAN US133000000121212121212." }),
  ];
  const context = { messages, threadId: "example" };
  return {
    // allow: the user typed this IBAN (with spaces); the audit records where it was found
    friend: policy.decide("send_money", { recipient: "GB29NWBK60161331926819", amount: 50 }, "high", context),
    // ask: this IBAN appears only in read_file's output; the reason names that output
    bill: policy.decide("send_money", { recipient: "US133000000121212121212", amount: 98.7 }, "high", context),
    // deny: over the budget of 5,000 per request, wherever the recipient came from
    large: policy.decide("send_money", { recipient: "GB29NWBK60161331926819", amount: 6000 }, "high", context),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [name, decision] of Object.entries(provenanceExample())) console.log(`${name}: ${decision.mode} (${decision.ruleId})`);
}
