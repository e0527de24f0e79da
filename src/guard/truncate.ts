/** Groups digits by thousands without depending on the runtime's locale data. */
function formatCount(count: number): string {
  return String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

function marker(cut: number): string {
  return `\n\n... [${formatCount(cut)} chars truncated] ...\n\n`;
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

function noLimit(maxChars: number): boolean {
  return Number.isNaN(maxChars) || maxChars <= 0 || maxChars === Number.POSITIVE_INFINITY;
}

/** The first `length` code units, one shorter if that would split a surrogate pair. */
function safeHead(text: string, length: number): string {
  if (length <= 0) return "";
  const end = isHighSurrogate(text.charCodeAt(length - 1)) && isLowSurrogate(text.charCodeAt(length)) ? length - 1 : length;
  return text.slice(0, end);
}

/** The last `length` code units, one shorter if that would split a surrogate pair. */
function safeTail(text: string, length: number): string {
  if (length <= 0) return "";
  let start = text.length - length;
  if (isLowSurrogate(text.charCodeAt(start)) && isHighSurrogate(text.charCodeAt(start - 1))) start += 1;
  return text.slice(start);
}

interface Cut {
  head: string;
  tail: string;
  /** Code units left out between head and tail. */
  cut: number;
}

/** Head and tail that together take at most `budget` code units. */
function keepHeadAndTail(text: string, budget: number): Cut {
  const headLength = Math.ceil(budget / 2);
  const head = safeHead(text, headLength);
  const tail = safeTail(text, budget - headLength);
  return { head, tail, cut: text.length - head.length - tail.length };
}

const render = ({ head, tail, cut }: Cut): string => head + marker(cut) + tail;

/**
 * Keeps the head and tail of a long tool result with a marker counting the cut characters
 * (UTF-16 code units, as `maxChars` counts them). The result never exceeds `maxChars` and never
 * splits a surrogate pair. `maxChars` ≤ 0, NaN or Infinity means no limit. When even the marker
 * does not fit, only the head is kept.
 */
export function truncateResult(text: string, maxChars: number): string {
  if (noLimit(maxChars) || text.length <= maxChars) return text;
  const limit = Math.floor(maxChars);
  // The cut is at most text.length, so this marker is the longest one we can need.
  let reserved = marker(text.length).length;
  if (reserved >= limit) return safeHead(text, limit);
  let best = keepHeadAndTail(text, limit - reserved);
  // A smaller cut may print with fewer digits: give those characters back to head and tail.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const needed = marker(best.cut).length;
    if (needed >= reserved) break;
    const candidate = keepHeadAndTail(text, limit - needed);
    if (render(candidate).length > limit) break;
    best = candidate;
    reserved = needed;
  }
  return render(best);
}

interface TextBlock {
  type: "text";
  text: string;
}

function isTextBlock(block: unknown): block is TextBlock {
  return (
    typeof block === "object" && block !== null && (block as { type?: unknown }).type === "text" && typeof (block as { text?: unknown }).text === "string"
  );
}

/** Splits `budget` over lengths so short ones keep everything and the long ones share the rest equally. */
function shareBudget(lengths: readonly number[], budget: number): number[] {
  const order = lengths.map((length, index) => ({ length, index })).sort((a, b) => a.length - b.length);
  const shares = new Array<number>(lengths.length).fill(0);
  let remaining = budget;
  order.forEach(({ length, index }, position) => {
    const fair = Math.floor(remaining / (order.length - position));
    const share = Math.min(length, fair);
    shares[index] = share;
    remaining -= share;
  });
  return shares;
}

/**
 * Truncates a ToolMessage's content: a string as `truncateResult` does; in an array of content
 * blocks, the text blocks share `maxChars` between them and other blocks (images, …) are kept.
 * The input is not changed.
 */
export function truncateToolContent(content: string, maxChars: number): string;
export function truncateToolContent<B>(content: ReadonlyArray<B>, maxChars: number): B[];
export function truncateToolContent<B>(content: string | ReadonlyArray<B>, maxChars: number): string | B[];
export function truncateToolContent<B>(content: string | ReadonlyArray<B>, maxChars: number): string | B[] {
  if (typeof content === "string") return truncateResult(content, maxChars);
  const blocks = [...content];
  const textIndexes = blocks.flatMap((block, index) => (isTextBlock(block) ? [index] : []));
  const lengths = textIndexes.map((index) => (blocks[index] as TextBlock).text.length);
  const total = lengths.reduce((sum, length) => sum + length, 0);
  if (noLimit(maxChars) || total <= maxChars) return blocks;
  const shares = shareBudget(lengths, Math.floor(maxChars));
  textIndexes.forEach((blockIndex, i) => {
    const block = blocks[blockIndex] as TextBlock;
    const share = shares[i] ?? 0;
    // The same block with a shorter text: still a text block of the caller's block type.
    if (block.text.length > share) blocks[blockIndex] = { ...block, text: share > 0 ? truncateResult(block.text, share) : "" } as B;
  });
  return blocks;
}
