/** A refused memory or file operation. `rule` names what refused it, so the model and the audit log can tell. */
export class MemoryError extends Error {
  override readonly name = "MemoryError";
  constructor(
    message: string,
    readonly rule: string,
  ) {
    super(message);
  }
}
