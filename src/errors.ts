// Errors an operator can meet: typed, with a message that says what to do, never a stack trace.

/** A problem the operator can fix; the CLI prints its message and exits with `exitCode`. */
export class UserError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = 2,
  ) {
    super(message);
    this.name = 'UserError';
  }
}

/** Anything thrown, as an Error (a thrown non-Error becomes a UserError with its text). */
export const asError = (err: unknown): Error => (err instanceof Error ? err : new UserError(String(err)));

/** Bad command-line usage: exit 2. */
export class UsageError extends UserError {
  constructor(message: string) {
    super(message, 2);
    this.name = 'UsageError';
  }
}

/**
 * A setting the engine cannot take (`setting` names it without any flag syntax, `problem` says what it must be):
 * the command line turns it into a UsageError naming its flag; the wizard shows it as it is.
 */
export class InvalidSetting extends UserError {
  constructor(
    readonly setting: string,
    readonly problem: string,
  ) {
    super(`${setting} ${problem}`, 2);
    this.name = 'InvalidSetting';
  }
}
