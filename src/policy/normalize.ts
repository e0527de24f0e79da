/**
 * String normalisation for matching untrusted arguments. Every step can only merge spellings that
 * look alike to a human (or to a shell), so a deny rule written for the plain spelling also catches
 * the disguised ones.
 */

/** Cyrillic and Greek letters that render like Latin ones. NFKC does not fold these. */
const HOMOGLYPHS: Readonly<Record<string, string>> = {
  // Cyrillic lower case
  "а": "a", "в": "b", "е": "e", "ё": "e", "һ": "h", "і": "i", "ї": "i", "ј": "j", "к": "k",
  "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s",
  "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l", "ɡ": "g", "ı": "i",
  // Cyrillic upper case
  "А": "A", "В": "B", "Е": "E", "Ё": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
  "С": "C", "Т": "T", "У": "Y", "Х": "X", "І": "I", "Ї": "I", "Ј": "J", "Ѕ": "S", "Ԁ": "D",
  "Ԛ": "Q", "Ԝ": "W", "Ӏ": "I",
  // Greek
  "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t",
  "υ": "u", "χ": "x", "γ": "y", "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I",
  "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
  // Dashes and slashes a shell or a path parser would not tell apart at a glance
  "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-",
  "\u2212": "-", "\u2044": "/", "\u2215": "/", "\u29F8": "/",
};

const HOMOGLYPH_RE = new RegExp(`[${Object.keys(HOMOGLYPHS).join("")}]`, "gu");
/** Format characters (zero-width space/joiners, BOM, bidi controls, soft hyphen) plus invisible fillers. */
const INVISIBLE_RE = /[\p{Cf}\u034F\u115F\u1160\u3164\uFFA0\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/gu;
const COMBINING_MARK_RE = /\p{Mn}/gu;
const WHITESPACE_RUN_RE = /\s+/gu;
/**
 * Printable ASCII with single inner spaces, no leading or trailing space (the empty string too):
 * nothing to normalise, and no control character (the fast path). Same as
 * /^(?:[\x21-\x7E]+(?: [\x21-\x7E]+)*)?$/, as a loop (faster on the short strings arguments hold).
 */
export function isPlainText(input: string): boolean {
  let previousSpace = true; // no leading space
  for (let i = 0; i < input.length; i++) {
    const code = input.charCodeAt(i);
    if (code === 0x20) {
      if (previousSpace) return false;
      previousSpace = true;
    } else if (code > 0x20 && code < 0x7f) previousSpace = false;
    else return false;
  }
  return input.length === 0 || !previousSpace;
}

/**
 * NFKC (fullwidth and compatibility forms), invisible characters removed, accents stripped,
 * Cyrillic/Greek look-alikes mapped to Latin, whitespace runs (tabs, newlines, NBSP, ...) collapsed
 * to one space and trimmed. Case is kept; see `foldCase`.
 */
export function normalizeString(input: string): string {
  if (isPlainText(input)) return input;
  const compatible = input.normalize("NFKC").replace(INVISIBLE_RE, "");
  // ASCII now (fullwidth letters, a zero-width space, padding, tabs): decomposing, dropping marks,
  // recomposing and mapping look-alikes change no ASCII character; only whitespace is left to do.
  if (isAscii(compatible)) return isPlainText(compatible) ? compatible : compatible.replace(WHITESPACE_RUN_RE, " ").trim();
  return normalizeFully(compatible);
}

/** Every character below U+0080. */
function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** The steps of `normalizeString` after NFKC and removing invisible characters. */
function normalizeFully(compatible: string): string {
  return compatible
    .normalize("NFD")
    .replace(COMBINING_MARK_RE, "")
    .normalize("NFC")
    .replace(HOMOGLYPH_RE, (ch) => HOMOGLYPHS[ch] ?? ch)
    .replace(WHITESPACE_RUN_RE, " ")
    .trim();
}

/** Case folding used by case-insensitive matchers. */
export function foldCase(input: string): string {
  return input.toLowerCase();
}
