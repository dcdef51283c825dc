// The sandbox store: in-memory state rebuilt on start from the lowdb JSON snapshot plus the change log,
// then kept durable by group-committed log appends, with the snapshot rewritten in the background once
// the log has grown comparable to it (so the cost per write stays flat however large the store is).
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { UserError } from '../../errors.js';
import { ChangeLog } from './changelog.js';
import { COLLECTION_NAMES, type Change } from './records.js';
import { capturedRecords, emptySnapshot, removeIfPresent, snapshotFile, type SnapshotData, type SnapshotFile } from './snapshot.js';
import { StoreState } from './state.js';
import { NotStreamable, streamSnapshot } from './snapshot-stream.js';
import { replayLog } from './replay.js';

export { StoreState, evTokenOwner } from './state.js';
export * from './records.js';

export interface StoreOptions {
  /** Rewrite the snapshot once the log exceeds max(this, snapshot size). Default 8 MiB. */
  minCompactBytes?: number;
}

export interface Store {
  readonly path: string;
  readonly state: StoreState;
  /** Apply changes now (visible to later requests) and resolve when they are durable. */
  commit(changes: Change[]): Promise<void>;
  /** Resolves when every change applied so far is durable (for answers that read uncommitted state). */
  settled(): Promise<void>;
  /** Counters for tests and diagnostics. */
  stats(): { groups: number; logBytes: number; snapshotBytes: number };
  /** Resolves when a background snapshot rewrite (if any) is over. */
  compacted(): Promise<void>;
  /** Flush, write a final snapshot, close. */
  close(): Promise<void>;
}

export const logPathOf = (path: string): string => `${path}.log`;
export const oldLogPathOf = (path: string): string => `${path}.log.old`;

export async function openStore(path: string, options: StoreOptions = {}): Promise<Store> {
  const file = snapshotFile(path);
  const state = await loadSnapshot(path, file);
  const replayed = (await replayLog(oldLogPathOf(path), state)) + (await replayLog(logPathOf(path), state));
  if (replayed > 0 || file.bytes() === 0) {
    // Fold the logs into the snapshot before serving, so the log can start empty.
    await file.write(capture(state));
  }
  await removeIfPresent(oldLogPathOf(path));
  await removeIfPresent(logPathOf(path));
  await removeStaleTempFiles(path);
  const log = await ChangeLog.open(logPathOf(path));
  return new DurableStore(path, state, log, file, options.minCompactBytes ?? 8 << 20);
}

/** The snapshot's records applied to a new state one by one as they are read (streamed), or read whole for another layout. */
async function loadSnapshot(path: string, file: SnapshotFile): Promise<StoreState> {
  let state = new StoreState();
  try {
    const streamed = await streamSnapshot(path, (c, k, v) => {
      // A key twice (never written so, but a file may be edited): read whole instead, where the last one wins.
      if (!state.insert({ c, k, v } as Change)) throw new NotStreamable('a key appears twice');
    });
    if (streamed) {
      state.seq = streamed.seq;
      file.noteBytes(streamed.bytes);
    }
    return state;
  } catch (err) {
    if (!(err instanceof NotStreamable)) {
      if (err instanceof UserError) throw err;
      throw new UserError(
        `the sandbox store ${path} is not readable (${(err as Error).message}); refusing to start and leaving it untouched`,
      );
    }
  }
  state = new StoreState();
  const data = await file.read();
  for (const c of COLLECTION_NAMES) {
    for (const [k, v] of data.collections[c]) state.apply({ c, k, v } as Change);
    data.collections[c] = [];
  }
  state.seq = data.seq;
  return state;
}

/** Snapshot temp files left by a crash in the middle of a rewrite (never the store itself). */
async function removeStaleTempFiles(path: string): Promise<void> {
  const prefix = `${basename(path)}.tmp-`;
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  for (const name of names) if (name.startsWith(prefix)) await removeIfPresent(join(dirname(path), name));
}

function capture(state: StoreState): SnapshotData {
  const data = emptySnapshot();
  data.seq = state.seq;
  for (const c of COLLECTION_NAMES) data.collections[c] = capturedRecords(state.maps[c]);
  return data;
}

class DurableStore implements Store {
  private compacting: Promise<void> | null = null;
  private closed = false;

  constructor(
    readonly path: string,
    readonly state: StoreState,
    private readonly log: ChangeLog,
    private readonly file: SnapshotFile,
    private readonly minCompactBytes: number,
  ) {}

  commit(changes: Change[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the store is closed'));
    if (changes.length === 0) return this.settled();
    for (const c of changes) this.state.apply(c);
    const seq = ++this.state.seq;
    const done = this.log.append(JSON.stringify({ s: seq, o: changes }));
    if (!this.compacting && this.log.bytes > Math.max(this.minCompactBytes, this.file.bytes())) this.compacting = this.compact();
    return done;
  }

  settled(): Promise<void> {
    return this.log.drain();
  }

  stats() {
    return { groups: this.log.groups, logBytes: this.log.bytes, snapshotBytes: this.file.bytes() };
  }

  /** Resolves when a background snapshot rewrite (if any) is over. */
  async compacted(): Promise<void> {
    await this.compacting;
  }

  /** Rotate the log, capture the state at that exact point, write the snapshot, drop the old log. */
  private async compact(): Promise<void> {
    try {
      let data: SnapshotData | undefined;
      await this.log.rotate(oldLogPathOf(this.path), () => {
        data = capture(this.state);
      });
      await this.file.write(data!);
      await removeIfPresent(oldLogPathOf(this.path));
    } catch (err) {
      process.stderr.write(
        `auth-migrate core: could not rewrite the store snapshot (${(err as Error).message}); the change log keeps every write\n`,
      );
    } finally {
      this.compacting = null;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.log.drain();
    if (this.compacting) await this.compacting;
    await this.file.write(capture(this.state));
    await this.log.close();
    await removeIfPresent(oldLogPathOf(this.path));
    await removeIfPresent(logPathOf(this.path));
  }
}

/** Size of a file, 0 if missing (for tests and diagnostics). */
export async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}
