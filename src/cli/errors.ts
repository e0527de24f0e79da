import { ErrorCode, GuardedGraphError } from "../errors/index.js";

/**
 * An error the CLI reports as one message (no stack) with an exit code: 1 refused/failed
 * (`GG_ERR_CLI_FAILED`), 2 usage (`GG_ERR_CLI_USAGE`).
 */
export class CliError extends GuardedGraphError {
  override name = "CliError";
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(exitCode === 2 ? ErrorCode.CLI_USAGE : ErrorCode.CLI_FAILED, message);
  }
}
