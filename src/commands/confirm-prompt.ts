// The headless answer to an operation's confirmation: in a terminal the operator types the core's host (read from
// the lines printed above it). Whether to ask at all is the write session's (operations/session.ts): `--yes` goes
// on without asking, and without a terminal (cron, CI, `ssh host cmd`, `< /dev/null`) a real core is refused (exit 2)
// before it is contacted, with one line naming --yes. The sandbox is a rehearsal and is never asked about.
import { createInterface } from 'node:readline';
import type { Confirmation } from '../operations/confirm.js';
import { needsYesLine, type SessionShell } from '../operations/session.js';

export interface PromptIO {
  stdin: NodeJS.ReadableStream;
  stderr: NodeJS.WritableStream;
}

const isTerminal = (stdin: NodeJS.ReadableStream): boolean => (stdin as NodeJS.ReadStream).isTTY === true;

/** The asking part of a command's session shell: the terminal's prompt, `--yes`, and whether there is a terminal. */
export function terminalAsking(io: PromptIO, yes: boolean): Pick<SessionShell<unknown>, 'confirm' | 'yes' | 'canAsk'> {
  return { confirm: terminalConfirm(io), yes, canAsk: isTerminal(io.stdin) };
}

export function terminalConfirm(io: PromptIO): (c: Confirmation) => Promise<boolean> {
  return async (c) => {
    if (!isTerminal(io.stdin)) {
      // The session refuses this before starting; this answer holds wherever it could not (a target unknown then).
      io.stderr.write(`auth-migrate: ${needsYesLine(c.action, c.url)}\n`);
      return false;
    }
    const verb = c.action === 'rollback' ? 'remove' : 'write';
    const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: true });
    try {
      const answer = await new Promise<string>((resolve) => {
        rl.question(`type ${c.typed} to ${verb} (anything else stops, nothing written; --yes skips this question): `, resolve);
        rl.once('close', () => resolve(''));
      });
      return answer.trim() === c.typed;
    } finally {
      rl.close();
    }
  };
}
