/** How many generated cases each real-program oracle runs (CI sets GG_ORACLE_CASES=10000). */
export function oracleCases(): number {
  const n = Number(process.env.GG_ORACLE_CASES ?? "1000");
  return Number.isInteger(n) && n > 0 ? n : 1000;
}

/** Fixed seed (GG_ORACLE_SEED picks another for a longer search): a failure names its case and reproduces. */
export const ORACLE_SEED = Number.isInteger(Number(process.env.GG_ORACLE_SEED)) && process.env.GG_ORACLE_SEED !== undefined && process.env.GG_ORACLE_SEED !== "" ? Number(process.env.GG_ORACLE_SEED) : 20261127;

/** The ways a tool may read a path value: as written, backslashes as slashes, percent-escapes decoded. */
export function interpretations(value: string): string[] {
  const out = new Set([value, value.replace(/\\/g, "/")]);
  for (const v of [...out]) {
    const decoded = v.replace(/%([0-9a-fA-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    out.add(decoded);
    out.add(decoded.replace(/\\/g, "/"));
  }
  return [...out];
}
