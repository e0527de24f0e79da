/** A hand-written SVG bar chart of W1's ratios: (c)/(a) and (c)/(b) per round and their medians, with the targets. */
export interface RatioSeries {
  label: string;
  target: number;
  perRound: number[];
  median: number;
}

function esc(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

export function w1RatioChart(series: readonly RatioSeries[], caption: string): string {
  const width = 640;
  const rowHeight = 26;
  const left = 150;
  const right = 60;
  const top = 40;
  const rows = series.flatMap((s) => [
    ...s.perRound.map((v, i) => ({ label: `${s.label} round ${i + 1}`, value: v, target: s.target, strong: false })),
    { label: `${s.label} median`, value: s.median, target: s.target, strong: true },
  ]);
  const max = Math.max(1.5, ...rows.map((r) => r.value), ...series.map((s) => s.target)) * 1.1;
  const x = (v: number) => left + ((width - left - right) * v) / max;
  const height = top + rows.length * rowHeight + 40;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${left}" y="20" font-size="14" font-weight="bold">${esc(caption)}</text>`,
  ];
  rows.forEach((r, i) => {
    const y = top + i * rowHeight;
    const color = r.value <= r.target ? (r.strong ? "#1a7f37" : "#8fd19e") : r.strong ? "#cf222e" : "#f4a6a6";
    parts.push(`<text x="${left - 8}" y="${y + 15}" text-anchor="end"${r.strong ? ' font-weight="bold"' : ""}>${esc(r.label)}</text>`);
    parts.push(`<rect x="${left}" y="${y + 3}" width="${Math.max(1, x(r.value) - left).toFixed(1)}" height="${rowHeight - 8}" fill="${color}"/>`);
    parts.push(`<text x="${(x(r.value) + 4).toFixed(1)}" y="${y + 15}">${r.value.toFixed(2)}×</text>`);
  });
  for (const s of series) {
    const first = rows.findIndex((r) => r.label.startsWith(s.label));
    const count = s.perRound.length + 1;
    const tx = x(s.target).toFixed(1);
    parts.push(`<line x1="${tx}" x2="${tx}" y1="${top + first * rowHeight}" y2="${top + (first + count) * rowHeight}" stroke="#333" stroke-dasharray="4 3"/>`);
    parts.push(`<text x="${tx}" y="${top + (first + count) * rowHeight + 12}" text-anchor="middle" fill="#333">target ≤ ${s.target}</text>`);
  }
  const axisY = height - 10;
  parts.push(`<line x1="${left}" x2="${left}" y1="${top}" y2="${axisY - 12}" stroke="#999"/>`);
  parts.push(`<text x="${left}" y="${axisY}" fill="#666">0</text>`);
  parts.push(`</svg>`);
  return parts.join("\n");
}
