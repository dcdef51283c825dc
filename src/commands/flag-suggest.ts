// A mistyped flag named with the nearest one the command knows ("did you mean --yes?"), so a typo is fixed at a
// glance instead of by reading --help. Wraps node:util parseArgs's errors into the command's usage error.
import { UsageError } from '../errors.js';

/** Edit distance (insertions, deletions, substitutions, adjacent swaps), small words only. */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  return d[a.length]![b.length]!;
}

/** The known name nearest to `given` (within a third of its length, at least 1, at most 3 edits), or undefined. */
export function nearest(given: string, known: readonly string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const name of known) {
    const d = name.startsWith(given) && given.length >= 3 ? 1 : distance(given, name);
    if (d <= Math.min(3, Math.max(1, Math.floor(given.length / 3))) && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}

/** parseArgs's error as the command's usage error; an unknown flag gets the nearest known one. */
export function flagUsageError(err: unknown, options: Record<string, unknown>, command: string): UsageError {
  const message = (err as Error).message;
  const unknown = /^Unknown option '(-{1,2})([^'=]+)/.exec(message);
  const guess = unknown ? nearest(unknown[2]!, Object.keys(options)) : undefined;
  const hint = unknown ? `unknown option ${unknown[1]}${unknown[2]}${guess ? `: did you mean --${guess}?` : ''}` : message;
  return new UsageError(`${hint}${guess ? '' : '.'} See \`auth-migrate ${command} --help\`.`);
}
