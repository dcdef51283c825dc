// Reading the store's snapshot record by record, straight into the state: the file is never held whole as one
// string (a million users make several hundred MB, near V8's string limit) nor as a second tree of objects
// beside the state. It relies on the layout snapshot.ts writes (a header line, then one `"key":value` line per
// record, collections opened by `"name":{` and closed by a `}` at the end of their last line); a file laid out
// otherwise (hand-written, pretty-printed) is read whole instead, by the caller.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { COLLECTION_NAMES, type CollectionName } from './records.js';
import { SNAPSHOT_FORMAT } from './snapshot.js';

/** Not the streamed layout: the caller reads the file whole. */
export class NotStreamable extends Error {}

const HEADER = /^\{"format":("(?:[^"\\]|\\.)*"),"version":1,"seq":(\d+),"collections":\{$/;
const OPEN = /^"([a-zA-Z]+)":\{(\}*)(,?)$/;

export interface StreamedSnapshot {
  seq: number;
  bytes: number;
}

/**
 * Calls `onRecord` for every record, in file order; resolves with the snapshot's seq, or undefined when the file
 * is missing or empty. Throws NotStreamable for another layout and Error for a damaged file.
 */
export async function streamSnapshot(
  path: string,
  onRecord: (c: CollectionName, k: string, v: unknown) => void,
): Promise<StreamedSnapshot | undefined> {
  let bytes: number;
  try {
    bytes = (await stat(path)).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  if (bytes === 0) return undefined;
  // 64 KiB chunks: a chunk string over V8's 128 KiB regular-object limit goes to the large-object space, where it
  // outlives the line it held until a full GC (at a million users, 1 MiB chunks added ~250 MB to the peak RSS).
  const input = createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 16 });
  const lines = createInterface({ input, crlfDelay: Infinity });
  let seq: number | undefined;
  let current: CollectionName | undefined;
  let ended = false;
  let lineNo = 0;
  for await (const line of lines) {
    lineNo++;
    if (ended) {
      if (line.trim() !== '') throw new NotStreamable(`text after the end (line ${lineNo})`);
      continue;
    }
    if (seq === undefined) {
      const m = HEADER.exec(line);
      if (!m || JSON.parse(m[1]!) !== SNAPSHOT_FORMAT) throw new NotStreamable('no streamed header');
      seq = Number(m[2]);
      continue;
    }
    if (current === undefined) {
      const m = OPEN.exec(line);
      if (!m || !COLLECTION_NAMES.includes(m[1] as CollectionName)) throw new NotStreamable(`line ${lineNo}: not a collection`);
      current = m[1] as CollectionName;
      // `"name":{}` (empty), then `,` or the end of collections and file `}}`.
      if (m[2]!.length > 0) ended = closes(m[2]!.length - 1, m[3]!, () => (current = undefined));
      continue;
    }
    const body = line.endsWith(',') ? line.slice(0, -1) : line;
    const comma = body.length !== line.length;
    const [k, value, extra] = parseRecord(body, lineNo);
    onRecord(current, k, value);
    if (extra > 0) ended = closes(extra - 1, comma ? ',' : '', () => (current = undefined));
    else if (!comma) throw new Error(`line ${lineNo}: a record without a comma is not the last of its collection`);
  }
  if (seq === undefined) return undefined;
  if (!ended) throw new Error('the file ends before its last collection is closed (truncated)');
  return { seq, bytes };
}

/**
 * One `"key":value` line (without its comma) as [key, value, closing braces after the value]. The key and the value
 * are parsed apart: parsing the line as one object `{"key":value}` would make V8 create a hidden class (and an
 * internalized key string) for every distinct key, which at a million records doubled the time and the garbage.
 * The last record of a collection carries the collection's `}` (and, last of all, the file's `}}`).
 */
function parseRecord(body: string, lineNo: number): [string, unknown, number] {
  const bad = (): never => {
    throw new Error(`line ${lineNo} is not a record`);
  };
  if (body.charCodeAt(0) !== QUOTE) bad();
  let i = 1;
  while (i < body.length && body.charCodeAt(i) !== QUOTE) i += body.charCodeAt(i) === BACKSLASH ? 2 : 1;
  if (i >= body.length || body.charCodeAt(i + 1) !== COLON) bad();
  let k: unknown;
  try {
    k = JSON.parse(body.slice(0, i + 1));
  } catch {
    bad();
  }
  const text = body.slice(i + 2);
  for (let extra = 0; extra <= 3; extra++) {
    try {
      return [k as string, JSON.parse(extra ? text.slice(0, -extra) : text), extra];
    } catch {
      if (!text.endsWith('}'.repeat(extra + 1))) break;
    }
  }
  return bad();
}

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;

/** After a collection's `}`: `,` means another collection follows; `}}` (extra 2) ends the file. */
function closes(extra: number, comma: string, close: () => void): boolean {
  close();
  if (extra === 0 && comma === ',') return false;
  if (extra === 2 && comma === '') return true;
  throw new NotStreamable('unexpected closing');
}
