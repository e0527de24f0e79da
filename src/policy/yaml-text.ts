import type { Document } from "yaml";
import { yamlLibrary } from "../deps/on-demand.js";

/** How policy files are read: a key written twice in one mapping is an error (a second `mode:` must not silently replace the first). */
const OPTIONS = { uniqueKeys: true, prettyErrors: true } as const;

/**
 * YAML text as `parse(text, { uniqueKeys: true, prettyErrors: true })` reads it. The library checks
 * each key of a mapping against every key before it (quadratic: a `tools:` map of 20,000 entries
 * took seconds); here the text is read without that check and every mapping's keys are compared
 * once through a set (the library's equality: scalars by `===` on their values, so NaN is never a
 * duplicate; other keys are distinct nodes). When the text has an error, a warning or a duplicate
 * key, it is read again the library's way, which reports it exactly as before (message, position).
 */
export function parseYamlText(text: string): unknown {
  const { parse, parseDocument } = yamlLibrary();
  const doc = parseDocument(text, { ...OPTIONS, uniqueKeys: false });
  if (doc.errors.length === 0 && doc.warnings.length === 0 && !hasDuplicateKey(doc)) return doc.toJS();
  return parse(text, OPTIONS) as unknown;
}

function hasDuplicateKey(doc: Document.Parsed): boolean {
  const { isMap, isScalar, visit } = yamlLibrary();
  let found = false;
  visit(doc, {
    Map(_, map) {
      if (!isMap(map)) return undefined;
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        const key: unknown = pair.key;
        if (!isScalar(key)) continue;
        const value = key.value;
        if (typeof value === "number" && Number.isNaN(value)) continue;
        if (seen.has(value)) {
          found = true;
          return visit.BREAK;
        }
        seen.add(value);
      }
      return undefined;
    },
  });
  return found;
}
