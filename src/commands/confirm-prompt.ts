// The headless answer to an operation's confirmation: `--yes` goes on; in a terminal the operator types the
// core's host (read from the lines printed above it); without a terminal (cron, CI, `ssh host cmd`, `< /dev/null`)
// nothing can be asked, so a real core is not written or emptied without `--yes`: the command is refused (exit 2)
// before it contacts the core, with one line naming --yes. The sandbox is a rehearsal and is never asked about.
import { createInterface } from 'node:readline';
import { UserError } from '../errors.js';
import type { Confirmation } from '../operations/confirm.js';
import type { Target } from '../operations/target.js';

export interface PromptIO {
  stdin: NodeJS.ReadableStream;
  stderr: NodeJS.WritableStream;
}

const isTerminal = (stdin: NodeJS.ReadableStream): boolean => (stdin as NodeJS.ReadStream).isTTY === true;

/** The one line of a refusal for want of --yes. */
export function needsYesLine(action: Confirmation['action'], url: string): string {
  const what = action === 'rollback' ? 'remove from' : 'write into';
  return (
    `no terminal to ask on (standard input is not a terminal): pass --yes to ${what} the core ${url.replace(/\/+$/, '')}; ` +
    `nothing was ${action === 'rollback' ? 'removed' : 'written'}`
  );
}

/**
 * Before anything is read or sent: a real core without --yes and without a terminal is refused (exit 2, one line).
 * A sandbox target, --yes or a terminal to ask on pass.
 */
export function refuseWithoutYes(action: Confirmation['action'], target: Target, yes: boolean, stdin: NodeJS.ReadableStream): void {
  if (yes || target.kind !== 'remote' || isTerminal(stdin)) return;
  throw new UserError(needsYesLine(action, target.url), 2);
}

export function terminalConfirm(io: PromptIO, yes: boolean): (c: Confirmation) => Promise<boolean> {
  return async (c) => {
    if (yes) return true;
    if (!isTerminal(io.stdin)) {
      // The commands refuse this before starting (refuseWithoutYes); this answer holds wherever they could not.
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
