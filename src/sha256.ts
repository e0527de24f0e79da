import * as crypto from "node:crypto";

/** One-shot `crypto.hash` (Node ≥ 20.12) where present: the same digest as `createHash`, about 3× less CPU for short input. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash;

/** The sha256 digest of `text` (UTF-8) in hex: what `createHash("sha256").update(text).digest("hex")` gives. */
export const sha256Hex: (text: string) => string = oneShot
  ? (text) => oneShot("sha256", text, "hex")
  : (text) => crypto.createHash("sha256").update(text).digest("hex");
