// What a headless command reads and writes: its own streams and environment (tests pass their own), so no command
// reaches for process.* itself. Its own module, so the commands and the cli that lists them import it, not each other.
export interface CommandIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /** Where a confirmation is typed (default: process.stdin; asked only when it is a terminal). */
  stdin?: NodeJS.ReadableStream;
}
