// Where every record of a validation pass came from, and its id, by ordinal: what a problem needs to name a record
// read long before. Typed storage (a packed number per origin, the ids as UTF-8 in one buffer), so a million
// records cost about 8 bytes plus their id each; kept after the pass (without the duplicate tables) for replays.
import { PackedStrings } from './packed-strings.js';
import type { RecordOrigin } from './types.js';

const POS = 2 ** 32;

export class RecordPlaces {
  private readonly files: string[] = [];
  private readonly fileIndex = new Map<string, number>();
  /** Every record's packed origin: (file * 4 + kind) * 2^32 + line or index (a double holds it exactly). */
  private origins = new Float64Array(1024);
  private readonly ids = new PackedStrings();

  get length(): number {
    return this.ids.length;
  }

  /** Add the next record; returns its ordinal. */
  push(origin: RecordOrigin, id: string): number {
    const me = this.ids.length;
    if (me === this.origins.length) {
      const grown = new Float64Array(this.origins.length * 2);
      grown.set(this.origins);
      this.origins = grown;
    }
    this.origins[me] = this.pack(origin);
    this.ids.push(id);
    return me;
  }

  originOf(ordinal: number): RecordOrigin {
    const packed = this.origins[ordinal]!;
    const high = Math.floor(packed / POS);
    const pos = packed - high * POS;
    const origin: RecordOrigin = { file: this.files[high >> 2]! };
    if ((high & 3) === 1) origin.line = pos;
    else if ((high & 3) === 2) origin.index = pos;
    return origin;
  }

  idOf(ordinal: number): string {
    return this.ids.get(ordinal);
  }

  private pack(origin: RecordOrigin): number {
    let f = this.fileIndex.get(origin.file);
    if (f === undefined) {
      f = this.files.length;
      this.files.push(origin.file);
      this.fileIndex.set(origin.file, f);
    }
    const kind = origin.line !== undefined ? 1 : origin.index !== undefined ? 2 : 0;
    const pos = origin.line ?? origin.index ?? 0;
    return (f * 4 + kind) * POS + pos;
  }
}
