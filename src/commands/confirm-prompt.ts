// The headless answer to an operation's confirmation: `--yes` goes on; in a terminal the operator types the
// core's host (read from the lines printed above it); without a terminal nothing can be asked, so the command
// goes on as it always has (scripts pass --yes to say so) and the printed lines record what it wrote into.
import { createInterface } from 'node:readline';
import type { Confirmation } from '../operations/confirm.js';

export interface PromptIO {
  stdin: NodeJS.ReadableStream;
  stderr: NodeJS.WritableStream;
}

export function terminalConfirm(io: PromptIO, yes: boolean): (c: Confirmation) => Promise<boolean> {
  return async (c) => {
    if (yes) return true;
    if ((io.stdin as NodeJS.ReadStream).isTTY !== true) return true;
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
