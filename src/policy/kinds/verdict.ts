/**
 * Three-valued result of matching one argument value: a matcher that cannot tell (control
 * characters, unparseable shell, a path or URL it cannot read) says UNKNOWN, and the policy turns an
 * UNKNOWN on a deny or ask rule into "ask", and never lets an UNKNOWN satisfy an allow rule.
 */
export const NO = 0;
export const YES = 1;
export const UNKNOWN = 2;
export type Verdict = typeof NO | typeof YES | typeof UNKNOWN;

/** C0 and C1 control characters except tab, line feed and carriage return (which are whitespace). */
const CONTROL_CHAR_RE = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F]/;
const CONTROL_CHARS_GLOBAL = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F]/g;

export function hasControlChars(text: string): boolean {
  return CONTROL_CHAR_RE.test(text);
}

/** The text with control characters removed: what a deny rule is also tested against. */
export function stripControlChars(text: string): string {
  return text.replace(CONTROL_CHARS_GLOBAL, "");
}

/** `U+0000` style name of the first control character, for messages. */
export function firstControlChar(text: string): string | undefined {
  const match = CONTROL_CHAR_RE.exec(text);
  if (match === null) return undefined;
  return `U+${(match[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
}
