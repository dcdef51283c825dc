// The store's JSON snapshot, read and written through lowdb with an adapter that writes a temp file,
// fsyncs it and renames it over the old one, serialising record by record so a large store does not
// block the event loop in one long JSON.stringify.
import { open, rename, readFile, unlink } from 'node:fs/promises';
import { openPrivate, writeWhole } from '../../files/private.js';
import { dirname } from 'node:path';
import { Low, type Adapter } from 'lowdb';
import { UserError } from '../../errors.js';
import { COLLECTION_NAMES, type CollectionName } from './records.js';

export const SNAPSHOT_FORMAT = 'auth-migrate-sandbox-store';

export interface SnapshotData {
  format: string;
  version: 1;
  /** Sequence number of the last change the snapshot holds. */
  seq: number;
  /** Read: one Map per collection. Written: anything that lists the records (see `capturedRecords`). */
  collections: Record<CollectionName, Iterable<readonly [string, unknown]>>;
}

/**
 * A copy of a map's records at one instant, to write while the map changes: two arrays hold a record in 16 bytes
 * where a copied Map takes about 40-50 (at a million users, 50 MB less at the peak of a snapshot rewrite).
 */
export function capturedRecords(
  map: Iterable<readonly [string, unknown]> & { size: number; captured?: () => Iterable<readonly [string, unknown]> },
): Iterable<readonly [string, unknown]> {
  // A collection that can copy itself more cheaply (verified-emails.ts) does.
  if (map.captured) return map.captured();
  const keys = new Array<string>(map.size);
  const values = new Array<unknown>(map.size);
  let n = 0;
  for (const [k, v] of map) {
    keys[n] = k;
    values[n++] = v;
  }
  return {
    *[Symbol.iterator]() {
      for (let i = 0; i < n; i++) yield [keys[i]!, values[i]] as const;
    },
  };
}

export function emptySnapshot(): SnapshotData {
  const collections = {} as SnapshotData['collections'];
  for (const c of COLLECTION_NAMES) collections[c] = new Map();
  return { format: SNAPSHOT_FORMAT, version: 1, seq: 0, collections };
}

class DurableSnapshotFile implements Adapter<SnapshotData> {
  /** Size of the last file read or written. */
  bytes = 0;
  constructor(private readonly path: string) {}

  async read(): Promise<SnapshotData | null> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new UserError(`cannot read the sandbox store ${this.path} (${(err as Error).message}); refusing to start`);
    }
    this.bytes = Buffer.byteLength(text);
    if (text.trim() === '') return null;
    const refuse = (why: string): never => {
      throw new UserError(`the sandbox store ${this.path} is not readable (${why}); refusing to start and leaving it untouched`);
    };
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      // Only where: V8's message can quote the text around the error, and a store holds password hashes.
      const at = /at position (\d+)/.exec((err as Error).message)?.[1];
      return refuse(`invalid JSON${at ? ` at position ${at}` : ''}`);
    }
    const obj = raw as { format?: unknown; seq?: unknown; collections?: Record<string, unknown> };
    if (
      !obj ||
      typeof obj !== 'object' ||
      obj.format !== SNAPSHOT_FORMAT ||
      typeof obj.seq !== 'number' ||
      typeof obj.collections !== 'object' ||
      !obj.collections
    ) {
      return refuse('not an auth-migrate sandbox store');
    }
    const data = emptySnapshot();
    data.seq = obj.seq;
    for (const c of COLLECTION_NAMES) {
      const records = obj.collections[c];
      if (records === undefined) continue;
      if (typeof records !== 'object' || records === null) refuse(`collection ${c} is not an object`);
      data.collections[c] = new Map(Object.entries(records as Record<string, unknown>));
    }
    return data;
  }

  async write(data: SnapshotData): Promise<void> {
    const tmp = `${this.path}.tmp-${process.pid}`;
    const fh = await openPrivate(tmp, 'w');
    let bytes = 0;
    try {
      let chunk = `{"format":${JSON.stringify(data.format)},"version":1,"seq":${data.seq},"collections":{`;
      let n = 0;
      const flush = async (): Promise<void> => {
        bytes += Buffer.byteLength(chunk);
        await writeWhole(fh, chunk);
        chunk = '';
      };
      for (let ci = 0; ci < COLLECTION_NAMES.length; ci++) {
        const c = COLLECTION_NAMES[ci]!;
        chunk += `${ci ? ',' : ''}\n${JSON.stringify(c)}:{`;
        let first = true;
        for (const [k, v] of data.collections[c]) {
          chunk += `${first ? '' : ','}\n${JSON.stringify(k)}:${JSON.stringify(v)}`;
          first = false;
          // Written in slices of ~64 KiB (each await lets requests run in between): a slice stays below V8's
          // large-object size, so it dies young instead of waiting for a full GC (~100 MB of peak at 1M users).
          if (++n % 2000 === 0 || chunk.length > 1 << 16) await flush();
        }
        chunk += '}';
      }
      chunk += '}}\n';
      await flush();
      await fh.datasync();
    } finally {
      await fh.close();
    }
    await rename(tmp, this.path);
    await fsyncDir(dirname(this.path));
    this.bytes = bytes;
  }
}

export async function fsyncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic.
  }
}

export interface SnapshotFile {
  read(): Promise<SnapshotData>;
  write(data: SnapshotData): Promise<void>;
  bytes(): number;
  /** The size of the file when it was read another way (streamed: snapshot-stream.ts). */
  noteBytes(bytes: number): void;
}

export function snapshotFile(path: string): SnapshotFile {
  const adapter = new DurableSnapshotFile(path);
  const db = new Low<SnapshotData>(adapter, emptySnapshot());
  return {
    async read() {
      await db.read();
      const data = db.data;
      // Not kept here: the state holds the records, and a second set of maps would double the store's memory.
      db.data = emptySnapshot();
      return data;
    },
    async write(data) {
      db.data = data;
      try {
        await db.write();
      } finally {
        db.data = emptySnapshot();
      }
    },
    bytes: () => adapter.bytes,
    noteBytes: (bytes) => {
      adapter.bytes = bytes;
    },
  };
}

export async function removeIfPresent(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
