import { ErrorCode, GuardedGraphError } from "../errors/index.js";

/** A refused memory or file operation. `rule` names what refused it, so the model and the audit log can tell. */
export class MemoryError extends GuardedGraphError {
  override name = "MemoryError";
  constructor(
    message: string,
    readonly rule: string,
  ) {
    super(ErrorCode.MEMORY_REFUSED, message);
  }
}
