import { QUOTE_LIMIT } from "../../messages/approval.js";

// ─── bounded quoting ───────────────────────────────────────────────────────────────────────────

export function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/**
 * A JSON-like rendering of a client's value, at most QUOTE_LIMIT characters, built without ever
 * serializing more than that (a 10 MB field costs no more than a small one); cycles and odd values safe.
 */
export function quote(value: unknown, max: number = QUOTE_LIMIT): string {
  let out = "";
  const seen = new WeakSet<object>();
  const full = () => out.length >= max;
  const put = (text: string) => {
    if (!full()) out += text.slice(0, max - out.length + 1);
  };
  const walk = (v: unknown, depth: number): void => {
    if (full()) return;
    if (v === undefined) return put("undefined");
    if (v === null || typeof v === "boolean" || typeof v === "number") return put(String(v));
    if (typeof v === "bigint") return put(`${v}n`);
    if (typeof v === "string") return put(JSON.stringify(v.slice(0, max)));
    if (typeof v !== "object") return put(`[${typeof v}]`);
    if (seen.has(v)) return put("[circular]");
    if (depth > 20) return put("…");
    seen.add(v);
    if (Array.isArray(v)) {
      put("[");
      for (let i = 0; i < v.length && !full(); i += 1) {
        if (i > 0) put(",");
        walk(v[i], depth + 1);
      }
      return put("]");
    }
    put("{");
    let first = true;
    for (const key in v) {
      if (full()) break;
      if (!Object.prototype.hasOwnProperty.call(v, key)) continue;
      if (!first) put(",");
      first = false;
      put(`${JSON.stringify(key.slice(0, max))}:`);
      walk((v as Record<string, unknown>)[key], depth + 1);
    }
    put("}");
  };
  walk(value, 0);
  return out.length > max ? `${out.slice(0, max)}…` : out;
}
