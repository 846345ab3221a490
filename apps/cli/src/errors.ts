/** Exit codes: 0 everything succeeded, 1 a node failed or the API refused, 2 the command line was wrong. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** A failure on our side of the wire (unreachable API, unreadable config): printed as `error: <message>`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_FAILED,
  ) {
    super(message);
  }
}

/** A command line we cannot run: exit 2, with a pointer to the command's help. */
export class UsageError extends CliError {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message, EXIT_USAGE);
  }
}

/** The API's error envelope `{error: {code, message}}`: printed as `error: <message> (<code>)`. */
export class ApiError extends CliError {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message, EXIT_FAILED);
  }
}
