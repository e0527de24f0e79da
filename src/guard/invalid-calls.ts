import type { AIMessage } from "@langchain/core/messages";

/**
 * Tool calls the model wrote but its provider could not parse (LangChain's `invalid_tool_calls`:
 * arguments that are not JSON, a call cut off mid-stream). Left as they are, nothing answers them:
 * the run ends as if the model had called nothing, and ChatOpenAI sends the raw call back with the
 * next request, which the API refuses (400, "tool_calls must be followed by tool messages"), so
 * the thread can never go on. The guard moves each into the message's `tool_calls` with its raw
 * text under `UNPARSED_ARGS_KEY` in place of arguments, so it is reviewed like every other call:
 * refused by rule `schema` with the parser's error, one ToolMessage the model reads and retries on.
 */
const UNPARSED_ARGS_KEY = "$unparsedArguments";

/** Longest raw argument text kept in the message (and quoted to the model). */
const MAX_RAW_CHARS = 2_000;

interface UnparsedArguments {
  /** The arguments as the model wrote them (at most MAX_RAW_CHARS characters). */
  raw: string;
  /** Why they could not be parsed, as the provider's integration said. */
  error: string;
}

/** The marker review refuses, when `args` is one. */
export function unparsedArgumentsOf(args: Record<string, unknown>): UnparsedArguments | undefined {
  if (!Object.hasOwn(args, UNPARSED_ARGS_KEY)) return undefined;
  const marker = args[UNPARSED_ARGS_KEY] as Partial<UnparsedArguments> | null;
  return { raw: typeof marker?.raw === "string" ? marker.raw : "", error: typeof marker?.error === "string" && marker.error !== "" ? marker.error : "the arguments are not valid JSON" };
}

/**
 * The call with the marker in place of arguments that cannot be read as JSON data (a BigInt, a getter
 * or Proxy that throws: a model integration or middleware of yours may hand the guard anything),
 * `error` (what reading them threw) as the parser's: nothing downstream can serialise such arguments
 * (the checkpoint, the audit, the approval's record of them), and review refuses the marker.
 */
export function asUnreadable<T extends { args: Record<string, unknown> }>(call: T, error: unknown): T {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : "the arguments could not be read";
  const marker: UnparsedArguments = { raw: "", error: text.split("\n")[0]!.slice(0, MAX_RAW_CHARS) };
  return { ...call, args: { [UNPARSED_ARGS_KEY]: marker } };
}

/** `invalid_tool_calls` moved into `tool_calls` with the marker (undefined when the message has none). */
export function unparsedCallsAsCalls(ai: AIMessage): NonNullable<AIMessage["tool_calls"]> | undefined {
  const invalid = ai.invalid_tool_calls ?? [];
  if (invalid.length === 0) return undefined;
  const calls = [...(ai.tool_calls ?? [])];
  const taken = new Set(calls.map((c) => c.id));
  invalid.forEach((call, index) => {
    const id = call.id ?? `${ai.id ?? "invalid"}_invalid_${index}`;
    if (taken.has(id)) return;
    const raw = typeof call.args === "string" ? call.args : "";
    // The parser's first line (LangChain appends a troubleshooting URL the model has no use for).
    const error = (call.error ?? "").split("\n")[0]?.replace(/^Error: /, "").trim() ?? "";
    const marker: UnparsedArguments = { raw: raw.length > MAX_RAW_CHARS ? raw.slice(0, MAX_RAW_CHARS) : raw, error };
    calls.push({ id, name: call.name ?? "", args: { [UNPARSED_ARGS_KEY]: marker }, type: "tool_call" });
  });
  return calls;
}
