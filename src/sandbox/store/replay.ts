// Replaying the change log on start, line by line as it is read: a log grows as large as the snapshot before it is
// folded in (several hundred MB at a million users), and read whole it took as much again in memory, twice over
// with its lines split, and came near V8's longest string. A torn last line (a crash mid-append) is ignored; a bad
// line anywhere else is damage we must not paper over.
import { createReadStream } from 'node:fs';
import { UserError } from '../../errors.js';
import type { Change } from './records.js';
import type { StoreState } from './state.js';

/** Apply the log's changes newer than the state; returns how many entries were applied (0 when there is no log). */
export async function replayLog(logPath: string, state: StoreState): Promise<number> {
  let applied = 0;
  let lineNo = 0;
  /** A line that did not parse: torn if nothing but empty lines follows it. */
  let bad: number | undefined;
  const take = (line: string): void => {
    lineNo++;
    if (line === '') return;
    if (bad !== undefined) {
      throw new UserError(
        `the sandbox store log ${logPath} is damaged at line ${bad} (not a change entry); refusing to start and leaving it untouched`,
      );
    }
    let entry: { s: number; o: Change[] };
    try {
      entry = JSON.parse(line) as { s: number; o: Change[] };
    } catch {
      bad = lineNo;
      return;
    }
    if (typeof entry?.s !== 'number' || !Array.isArray(entry.o)) {
      bad = lineNo;
      return;
    }
    if (entry.s <= state.seq) return;
    for (const change of entry.o) state.apply(change);
    state.seq = entry.s;
    applied++;
  };
  const input = createReadStream(logPath, { encoding: 'utf8', highWaterMark: 1 << 16 });
  try {
    let rest = '';
    for await (const chunk of input as AsyncIterable<string>) {
      let start = 0;
      let nl: number;
      while ((nl = chunk.indexOf('\n', start)) >= 0) {
        take(start === 0 && rest !== '' ? rest + chunk.slice(0, nl) : chunk.slice(start, nl));
        if (start === 0) rest = '';
        start = nl + 1;
      }
      rest += chunk.slice(start);
    }
    if (rest !== '') take(rest);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    if (err instanceof UserError) throw err;
    throw new UserError(`cannot read the sandbox store log ${logPath} (${(err as Error).message}); refusing to start`);
  } finally {
    input.destroy();
  }
  return applied;
}
