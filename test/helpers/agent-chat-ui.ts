/**
 * What LangChain's Agent Chat UI does with an interrupt and with the thread, re-implemented for
 * tests (the UI itself is a Next.js app). Read from langchain-ai/agent-chat-ui at commit
 * fdc87e65307581b02898d33c62b3f285e56bd85b:
 * - src/lib/agent-inbox-interrupt.ts, `isAgentInboxInterruptSchema`: decides whether the interrupt
 *   renders as the Agent Inbox form (buttons) or as a raw JSON "Human Interrupt" table;
 * - src/components/thread/agent-inbox/utils.ts, `createDefaultHumanResponse` and
 *   `buildDecisionFromState`: the form shows ONLY the first action request, takes its review
 *   config by `action_name` (else the first), and builds ONE decision, edits as `edited_action`;
 * - src/components/thread/agent-inbox/hooks/use-interrupted-actions.tsx, `resumeRun`: submits
 *   `{ command: { resume: { decisions: [decision] } } }`;
 * - src/lib/ensure-tool-responses.ts, `ensureToolCallsHaveResponses`: when the user types instead
 *   of answering, every tool call of an AI message not followed by a tool message gets a
 *   ToolMessage "Successfully handled tool call." (id prefixed "do-not-render-") in the new input.
 * Shared with t13b-deploy's end-to-end test: keep it faithful to the UI, not to the guard.
 */

/** The UI's `isAgentInboxInterruptSchema`: the value (or the first of an array) of an interrupt. */
export function isAgentInboxInterruptSchema(value: unknown): boolean {
  const first: unknown = Array.isArray(value) ? value[0] : value;
  if (!first || typeof first !== "object") return false;
  const interruptValue = (first as { value?: unknown }).value;
  if (!interruptValue || typeof interruptValue !== "object") return false;
  const { action_requests: actionRequests, review_configs: reviewConfigs } = interruptValue as {
    action_requests?: unknown;
    review_configs?: unknown;
  };
  if (!Array.isArray(actionRequests) || actionRequests.length === 0) return false;
  if (!Array.isArray(reviewConfigs) || reviewConfigs.length === 0) return false;
  const validRequests = actionRequests.every(
    (request: unknown) =>
      !!request &&
      typeof request === "object" &&
      "name" in request &&
      typeof request.name === "string" &&
      "args" in request &&
      request.args !== null &&
      typeof request.args === "object",
  );
  const validConfigs = reviewConfigs.every(
    (config: unknown) =>
      !!config &&
      typeof config === "object" &&
      "action_name" in config &&
      typeof config.action_name === "string" &&
      "allowed_decisions" in config &&
      Array.isArray(config.allowed_decisions),
  );
  return validRequests && validConfigs;
}

export type UiDecision =
  | { type: "approve" }
  | { type: "reject"; message: string }
  | { type: "edit"; edited_action: { name: string; args: Record<string, unknown> } };

interface UiRequest {
  action_requests: { name: string; args: Record<string, unknown>; description?: string }[];
  review_configs: { action_name: string; allowed_decisions: string[] }[];
}

/** What the form shows: the first action request and its review config (matched by action_name, else the first). */
export function shownAction(interruptValue: unknown): { request: UiRequest["action_requests"][number]; allowed: string[] } | undefined {
  const value = interruptValue as Partial<UiRequest>;
  const request = value.action_requests?.[0];
  const config = value.review_configs?.find((c) => c.action_name === request?.name) ?? value.review_configs?.[0];
  if (!request || !config) return undefined;
  return { request, allowed: config.allowed_decisions ?? [] };
}

/**
 * The resume the UI submits when the user clicks a button on the shown action: one decision.
 * `edit` with unchanged args becomes `approve` when approve is allowed (as the UI does); a reject
 * needs a non-empty message (the UI refuses to send one without).
 */
export function uiResume(
  interruptValue: unknown,
  choice: { type: "approve" } | { type: "reject"; message: string } | { type: "edit"; args: Record<string, unknown> },
): { decisions: UiDecision[] } {
  const shown = shownAction(interruptValue);
  if (!shown) throw new Error("the UI shows no action: it renders the raw interrupt instead");
  if (!shown.allowed.includes(choice.type)) throw new Error(`the UI offers no ${choice.type} button here`);
  if (choice.type === "approve") return { decisions: [{ type: "approve" }] };
  if (choice.type === "reject") {
    const message = choice.message.trim();
    if (!message) throw new Error("the UI asks for a rejection reason");
    return { decisions: [{ type: "reject", message }] };
  }
  const unchanged = JSON.stringify(choice.args) === JSON.stringify(shown.request.args);
  if (unchanged && shown.allowed.includes("approve")) return { decisions: [{ type: "approve" }] };
  return { decisions: [{ type: "edit", edited_action: { name: shown.request.name, args: { ...choice.args } } }] };
}

interface SdkMessage {
  type: string;
  id?: string;
  tool_calls?: { id?: string; name: string }[];
}

/** The UI's `ensureToolCallsHaveResponses`: ToolMessages it adds to the user's typed input. */
export function ensureToolCallsHaveResponses(messages: readonly SdkMessage[]): {
  type: "tool";
  tool_call_id: string;
  id: string;
  name: string;
  content: string;
}[] {
  const added: { type: "tool"; tool_call_id: string; id: string; name: string; content: string }[] = [];
  messages.forEach((message, index) => {
    if (message.type !== "ai" || message.tool_calls?.length === 0) return;
    const following = messages[index + 1];
    if (following && following.type === "tool") return;
    for (const call of message.tool_calls ?? []) {
      added.push({
        type: "tool",
        tool_call_id: call.id ?? "",
        id: `do-not-render-${added.length}-${call.id ?? ""}`,
        name: call.name,
        content: "Successfully handled tool call.",
      });
    }
  });
  return added;
}
