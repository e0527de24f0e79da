/**
 * What the entry points (createGuardedAgent, GuardedToolNode, guardMiddleware) accept as a guard,
 * a model and tools, checked when the agent is built: a wrong value is refused there with an error
 * that names the fix, never later mid-run with a TypeError from deep inside LangChain.
 */
import { GuardConfigError } from "../errors/index.js";
import { Guard } from "./guard.js";
import type { PolicyGuard } from "./from-policy.js";

/** A guard wherever one is accepted: a `Guard`, or what `await guardFromPolicy(...)` gives. */
export type GuardLike = Guard | PolicyGuard;

function isThenable(value: unknown): boolean {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as { then?: unknown }).then === "function";
}

/** "a Promise", "undefined", "an object with keys a, b", "a string" — what was passed instead. */
function described(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (isThenable(value)) return "a Promise";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") {
    const name = (value as object).constructor?.name;
    const keys = Object.keys(value).slice(0, 6);
    const kind = name && name !== "Object" ? `a ${name}` : "an object";
    return keys.length > 0 ? `${kind} with keys ${keys.join(", ")}` : kind;
  }
  return `a ${typeof value}`;
}

/** What guardFromPolicy returns, or any object holding a Guard as its `guard`. */
function holdsGuard(value: unknown): value is { guard: Guard } {
  return typeof value === "object" && value !== null && (value as { guard?: unknown }).guard instanceof Guard;
}

/** The Guard in `value` (a Guard, or a PolicyGuard from guardFromPolicy); anything else is refused, naming the fix. */
export function guardOf(value: unknown, where: string): Guard {
  if (value instanceof Guard) return value;
  if (holdsGuard(value)) return value.guard;
  if (isThenable(value) || isThenable((value as { guard?: unknown } | null)?.guard)) {
    throw new GuardConfigError(
      `${where}: \`guard\` is a Promise. guardFromPolicy is async: write \`guard: await guardFromPolicy(...)\` (its result, or its \`.guard\`, is accepted as the guard)`,
    );
  }
  throw new GuardConfigError(
    `${where}: \`guard\` must be a Guard (\`new Guard({ tools })\`) or the result of \`await guardFromPolicy(...)\`, not ${described(value)}`,
  );
}

/** Refuses a model that is missing, a Promise (a missing `await createModel()`), or has no invoke(). */
export function assertChatModel(value: unknown, where: string): void {
  if (isThenable(value)) {
    throw new GuardConfigError(
      `${where}: \`model\` is a Promise, not a chat model. createModel() is async: write \`model: await createModel(...)\``,
    );
  }
  if (value === undefined || value === null) {
    throw new GuardConfigError(`${where} needs \`model\`: a LangChain chat model, e.g. \`await createModel()\` or \`new ChatOpenAI({ model: "..." })\``);
  }
  if (typeof (value as { invoke?: unknown }).invoke !== "function") {
    throw new GuardConfigError(
      `${where}: \`model\` must be a LangChain chat model (with an invoke() method), not ${described(value)}; e.g. \`await createModel()\` or \`new ChatOpenAI({ model: "..." })\``,
    );
  }
}

/** Refuses `tools` that are a Promise, not an array, or hold a Promise or a non-tool. */
export function assertTools(value: unknown, where: string): void {
  if (isThenable(value)) throw new GuardConfigError(`${where}: \`tools\` is a Promise. Await it first: \`tools: await loadTools(...)\``);
  if (!Array.isArray(value)) {
    throw new GuardConfigError(`${where}: \`tools\` must be an array of tools (from defineTool or LangChain's tool()), not ${described(value)}`);
  }
  value.forEach((tool: unknown, i) => {
    if (isThenable(tool)) throw new GuardConfigError(`${where}: \`tools[${i}]\` is a Promise. Await it before passing it: \`tools: [await makeTool(), ...]\``);
    if (typeof tool !== "object" || tool === null || typeof (tool as { name?: unknown }).name !== "string") {
      throw new GuardConfigError(`${where}: \`tools[${i}]\` is not a tool (a tool has a \`name\`, a \`schema\` and \`invoke\`), it is ${described(tool)}`);
    }
  });
}

/** Refuses options that are themselves a Promise (e.g. `guardMiddleware(guardFromPolicy(...))`). */
export function assertNotPromise(value: unknown, where: string, fix: string): void {
  if (isThenable(value)) throw new GuardConfigError(`${where}: received a Promise. ${fix}`);
}
