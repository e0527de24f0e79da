import { z } from "zod";
import { listSticky, revokeStickyDecision, StickyRevokeError } from "../../guard/approval/sticky.js";
import type { StickyDecision } from "../../guard/approval/state.js";
import { stickyRevokedLine } from "../../messages/approval.js";
import { CliError } from "../errors.js";
import { parseFlags, STORAGE_OPTIONS, storageFlagsSchema } from "../flags.js";
import type { Output } from "../render.js";
import { actorOf, parseThreadId, readerGraph, registeredPlan, withSession, withThreadSession, type Session } from "../session.js";
import type { ThreadEntry } from "../thread-registry.js";

export const STICKY_USAGE = {
  list: "sticky list THREAD [--json]",
  revoke: "sticky revoke THREAD ID [--actor NAME]",
} as const;

const listFlags = z.object({ ...storageFlagsSchema, json: z.boolean().optional() });
const revokeFlags = z.object({ ...storageFlagsSchema, actor: z.string().min(1).optional() });

/** `sticky list` and `sticky revoke`: a thread's standing decisions ("don't ask again"), listed and revoked (audited). */
export async function stickyCommand(argv: string[], output: Output): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "list") return listCommand(rest, output);
  if (sub === "revoke") return revokeCommand(rest, output);
  throw new CliError(`sticky: list or revoke? Usage: ${STICKY_USAGE.list} | ${STICKY_USAGE.revoke}`, 2);
}

function row(s: StickyDecision): string[] {
  return [s.id, s.decision, s.tool, s.args ? JSON.stringify(s.args) : "(any)", s.scope, s.actor ?? "", new Date(s.at).toISOString()];
}

async function listCommand(argv: string[], output: Output): Promise<number> {
  const { flags, positionals } = parseFlags("sticky list", argv, { ...STORAGE_OPTIONS, json: { type: "boolean" } }, listFlags);
  if (positionals.length !== 1) throw new CliError(`usage: ${STICKY_USAGE.list}`, 2);
  const threadId = parseThreadId(positionals[0]);
  return withSession(flags, async (session) => {
    const entry = await registered(session, threadId);
    const reader = await readerGraph(session, entry, threadId);
    let standing: StickyDecision[];
    try {
      standing = await listSticky(reader.graph, threadId);
    } finally {
      await reader.close();
    }
    if (flags.json) {
      output.out(JSON.stringify(standing, null, 2));
      return 0;
    }
    if (standing.length === 0) {
      output.out(`thread ${threadId} has no standing decisions`);
      return 0;
    }
    const header = ["ID", "DECISION", "TOOL", "ARGS", "SCOPE", "BY", "MADE"];
    const rows = standing.map(row);
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
    for (const line of [header, ...rows]) output.out(line.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ").trimEnd());
    return 0;
  });
}

async function revokeCommand(argv: string[], output: Output): Promise<number> {
  const { flags, positionals } = parseFlags("sticky revoke", argv, { ...STORAGE_OPTIONS, actor: { type: "string" } }, revokeFlags);
  if (positionals.length !== 2) throw new CliError(`usage: ${STICKY_USAGE.revoke}`, 2);
  const threadId = parseThreadId(positionals[0]);
  const id = z.string().min(1).max(200).parse(positionals[1]);
  const plan = async (session: Session) => registeredPlan(await registered(session, threadId));
  return withThreadSession({ flags, threadId, plan }, async ({ audit, ready }) => {
    try {
      const revoked = await revokeStickyDecision(ready.graph, threadId, id, { audit, actor: actorOf(flags.actor) });
      output.out(stickyRevokedLine(threadId, revoked.id, revoked.decision, revoked.tool, revoked.scope));
      return 0;
    } catch (error) {
      if (error instanceof StickyRevokeError) throw new CliError(error.message);
      throw error;
    }
  });
}

async function registered(session: Session, threadId: string): Promise<ThreadEntry> {
  const entry = await session.registry.get(threadId);
  if (!entry) throw new CliError(`no thread ${threadId} in ${session.spec} (guarded-graph threads lists them)`);
  return entry;
}
