/** How many generated cases each real-program oracle runs (CI sets GG_ORACLE_CASES=10000). */
export function oracleCases(): number {
  const n = Number(process.env.GG_ORACLE_CASES ?? "1000");
  return Number.isInteger(n) && n > 0 ? n : 1000;
}

/** Fixed seed: a failure names its case and reproduces. */
export const ORACLE_SEED = 20261127;
