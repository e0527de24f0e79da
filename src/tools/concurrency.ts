/**
 * The concurrency answer of a tool that declares none: never safe to run beside its siblings. One
 * function for every such tool, so the review knows the answer does not read the parsed input.
 */
export function neverConcurrencySafe(): boolean {
  return false;
}
