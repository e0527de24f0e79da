import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { registerThreadSource, threadSourceOf } from "./thread-source.js";

type Put = BaseCheckpointSaver["put"];
type PutWrites = BaseCheckpointSaver["putWrites"];

function checkpointKey(threadId: unknown, namespace: unknown, checkpointId: unknown): string {
  return `${String(threadId)}\u0000${String(namespace ?? "")}\u0000${String(checkpointId)}`;
}

/**
 * `saver` for a graph whose runs use `durability: "sync"`, with one difference: a task's writes
 * saved under a checkpoint whose `put` is still in flight are saved once that put has succeeded
 * (and not at all if it fails), so no write is ever saved under a checkpoint that is not.
 *
 * Under "sync" LangGraph awaits each step's checkpoint before the next step's tasks run, except the
 * checkpoint a run starts with (`PregelLoop._first` → `_putCheckpoint({ source: "input" })`, not
 * awaited): the first step's task (a StateGraph's `__start__`, which writes the run's input) can
 * save its writes before that checkpoint. A process killed in between left writes under a checkpoint
 * id never saved, which `readThreadProgress` reports as `"run-lost"`. LangGraph calls `put` for the
 * input checkpoint before the first task runs, so the write finds the put in flight here.
 *
 * Only puts whose run config says `durability: "sync"` are waited for; under "async" (each put
 * chained after the one before, often not yet started when its tasks' writes arrive) and "exit"
 * nothing changes. Every other member is the saver's own (methods bound to it), and the result
 * reads its threads as the saver does (`threadSourceOf`). LangGraph's in-memory MemorySaver itself
 * is returned as it is: its puts finish at once and a crash loses it whole.
 */
export function writesAfterTheirCheckpoint<T extends BaseCheckpointSaver>(saver: T): T {
  if (saver instanceof MemorySaver && Object.getPrototypeOf(saver) === MemorySaver.prototype) return saver;
  // One wrapper per saver, and a wrapper is not wrapped again: every graph (and every assignment of
  // the same saver, as LangGraph Platform makes per run) shares one record of the puts in flight.
  if (wrappers.has(saver)) return saver;
  const known = wrapped.get(saver);
  if (known !== undefined) return known as T;
  const inFlight = new Map<string, Promise<unknown>>();
  const put: Put = (config, checkpoint, metadata, versions) => {
    const saved = saver.put(config, checkpoint, metadata, versions);
    if ((config as { durability?: unknown }).durability !== "sync") return saved;
    const key = checkpointKey(config.configurable?.thread_id, config.configurable?.checkpoint_ns, checkpoint.id);
    inFlight.set(key, saved);
    const settled = () => {
      if (inFlight.get(key) === saved) inFlight.delete(key);
    };
    saved.then(settled, settled);
    return saved;
  };
  const putWrites: PutWrites = (config, writes, taskId) => {
    const pending = inFlight.get(checkpointKey(config.configurable?.thread_id, config.configurable?.checkpoint_ns, config.configurable?.checkpoint_id));
    // A rejected put rejects its writes too: they are not saved under a checkpoint that was not.
    return pending ? pending.then(() => saver.putWrites(config, writes, taskId)) : saver.putWrites(config, writes, taskId);
  };
  const bound = new Map<PropertyKey, { original: unknown; fn: unknown }>();
  const ordered = new Proxy(saver, {
    get(target, property) {
      if (property === "put") return put;
      if (property === "putWrites") return putWrites;
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      // Bound to the saver, so its methods reach their private fields.
      const cached = bound.get(property);
      if (cached?.original === value) return cached.fn;
      const fn = (value as (...args: unknown[]) => unknown).bind(target);
      bound.set(property, { original: value, fn });
      return fn;
    },
  });
  const source = threadSourceOf(saver);
  if (source) registerThreadSource(ordered, source);
  wrapped.set(saver, ordered);
  wrappers.add(ordered);
  return ordered;
}

/** A checkpointer by its shape: the server's may come from another copy of @langchain/langgraph-checkpoint. */
function isSaver(value: unknown): value is BaseCheckpointSaver {
  return typeof value === "object" && value !== null && typeof (value as BaseCheckpointSaver).put === "function" && typeof (value as BaseCheckpointSaver).putWrites === "function";
}

/** Saver → its wrapper. */
const wrapped = new WeakMap<BaseCheckpointSaver, BaseCheckpointSaver>();
/** The wrappers themselves. */
const wrappers = new WeakSet<BaseCheckpointSaver>();

/**
 * Keeps `graph`'s checkpointer wrapped by `writesAfterTheirCheckpoint`: the one it was compiled
 * with, and one assigned after compiling, as LangGraph Platform (`langgraph dev`, `langgraph up`) does: its server sets
 * `compiled.checkpointer = <its saver>` on the exported graph before each run. Without this the
 * server's saver ran as given, and a crash in a run's first step could leave the run lost
 * (docs/durability.md, "The first step of a run"). `false` and `undefined` are kept as they are.
 */
export function keepWritesAfterTheirCheckpoint<G extends { checkpointer?: unknown }>(graph: G): G {
  const ordered = (value: unknown): unknown => (isSaver(value) ? writesAfterTheirCheckpoint(value) : value);
  let current: unknown = ordered(graph.checkpointer);
  Object.defineProperty(graph, "checkpointer", {
    configurable: true,
    enumerable: true,
    get: () => current,
    set: (value: unknown) => {
      current = ordered(value);
    },
  });
  // `graph.withConfig(...)` builds a new graph from the fields (LangGraph's Pregel): it keeps this too,
  // so `createGuardedAgent(...).withConfig({ recursionLimit })` exported to the server is covered.
  const withConfig = (graph as { withConfig?: unknown }).withConfig;
  if (typeof withConfig === "function") {
    Object.defineProperty(graph, "withConfig", {
      configurable: true,
      writable: true,
      enumerable: false,
      value(this: unknown, ...args: unknown[]) {
        const derived: unknown = withConfig.apply(this, args);
        return typeof derived === "object" && derived !== null && "checkpointer" in derived ? keepWritesAfterTheirCheckpoint(derived) : derived;
      },
    });
  }
  return graph;
}
