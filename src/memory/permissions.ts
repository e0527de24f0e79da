import { MemoryError } from "./errors.js";
import type { Block, BlockEdit, MemoryPermission } from "./types.js";

/** What a change to a block needs: `append` for appends, `write` for any other content change, `lifecycle` for archive. */
export type ChangeKind = "append" | "write" | "lifecycle";

/** The party whose consent an edit needs, or undefined when the permission alone decides. */
type ConsentParty = "human" | "partner";

export function consentPartyFor(permission: MemoryPermission): ConsentParty | undefined {
  return permission === "human" || permission === "partner" ? permission : undefined;
}

const DESCRIPTIONS: Record<MemoryPermission, string> = {
  "read-only": "no changes",
  partner: "any change, with the partner's consent",
  human: "any change, with a human's consent",
  append: "append only",
  "read-write": "any content change",
  admin: "any change, including read-only fields",
};

export function describePermission(permission: MemoryPermission): string {
  return DESCRIPTIONS[permission];
}

export function changeKindOf(edit: BlockEdit): ChangeKind {
  return edit.kind === "append" ? "append" : "write";
}

/** Whether `permission` admits `change` at all (consent levels admit everything, subject to consent). */
export function permits(permission: MemoryPermission, change: ChangeKind): boolean {
  switch (permission) {
    case "read-only":
      return false;
    case "append":
      return change === "append";
    default:
      return true;
  }
}

/** Throws a MemoryError naming the permission when `block` may not take `change` by `operation`. */
export function assertPermits(block: Pick<Block, "label" | "permission">, change: ChangeKind, operation: string): void {
  if (permits(block.permission, change)) return;
  const allowed = block.permission === "append" ? "only append is allowed" : "it can only be read";
  throw new MemoryError(
    `${operation} refused on block "${block.label}": its permission is ${block.permission} (${describePermission(block.permission)}); ${allowed}`,
    `permission:${block.permission}`,
  );
}

/** The approval reason for `change` on a block, or undefined when no consent is needed or the change is refused anyway. */
export function consentReason(
  block: Pick<Block, "label" | "permission">,
  change: ChangeKind,
  operation: string,
): string | undefined {
  const party = consentPartyFor(block.permission);
  if (!party || !permits(block.permission, change)) return undefined;
  return `${operation} on block "${block.label}" needs ${party === "human" ? "a human's" : "the partner's"} consent (permission: ${block.permission})`;
}
