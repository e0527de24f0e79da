import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { z } from "zod";

// ─── approver identity ─────────────────────────────────────────────────────────────────────────

const PlatformUser = z.lazy(() => z.object({ identity: z.string().min(1), is_authenticated: z.boolean().optional() }).passthrough());

/**
 * Who answered: on LangGraph Platform the authenticated user of the run (`langgraph_auth_user` in
 * the run's configurable, set by the server's auth handler); a client-supplied `actor` is only a
 * claim. Without a platform user (a local graph), the claim is all there is and is recorded as such.
 */
export function approverOf(
  config: LangGraphRunnableConfig | undefined,
  claimed: string | undefined,
): { actor: string | undefined; detail: Record<string, unknown> } {
  const user = PlatformUser.safeParse(config?.configurable?.langgraph_auth_user);
  const verified = user.success && user.data.is_authenticated !== false ? user.data.identity : undefined;
  if (verified !== undefined) {
    return { actor: verified, detail: { actorSource: "langgraph_auth_user", ...(claimed !== undefined ? { claimedActor: claimed } : {}) } };
  }
  return { actor: claimed, detail: claimed !== undefined ? { actorSource: "claim", claimedActor: claimed } : {} };
}
