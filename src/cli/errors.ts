/** An error the CLI reports as one message (no stack) with an exit code: 1 refused/failed, 2 usage. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
    this.name = "CliError";
  }
}
