// The per-user paths take their users through a window: admitted users are read ahead, and the strategy writes the
// intents it can already name for all of them (the first factors the engine knows absent from the core) in one
// group, one write and one sync, before any of them is sent. Without it each user would wait for a sync of its own
// before its first request. Invariant: a user leaves the window only once its written-ahead intents are on disk.
import type { Admitted } from '../../strategy.js';

/**
 * A `take` for the engine's per-user workers. `next(n)` admits up to n users (fewer only at the end of the input or
 * when the run stops); `writeAhead` puts their intents on the disk. The next window is read while the last
 * `low` users of this one are being migrated.
 */
export function writeAheadWindow(
  next: (n: number) => Promise<Admitted[]>,
  writeAhead: (users: Admitted[]) => Promise<void>,
  size: number,
  low: number,
): () => Promise<Admitted | undefined> {
  const ahead: Admitted[] = [];
  let more = true;
  let filling: Promise<void> | undefined;
  const fill = (): Promise<void> =>
    (filling ??= (async () => {
      const users = await next(size);
      if (users.length === 0) more = false;
      else {
        await writeAhead(users);
        ahead.push(...users);
      }
    })().finally(() => (filling = undefined)));
  return async () => {
    while (ahead.length === 0) {
      if (!more) return undefined;
      await fill();
    }
    // A failed fill in the background is met again (and thrown) by the worker that next waits for one.
    if (ahead.length <= low && more) fill().catch(() => undefined);
    return ahead.shift();
  };
}
