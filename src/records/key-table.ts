// A compact string -> number table for duplicate detection over millions of records: keys are kept only as
// a 64-bit hash in typed arrays (about 24 bytes an entry instead of ~70 for a Map and its strings).
// Two different keys collide with a probability of about n^2 / 2^65 (3e-8 for a million keys).

const EMPTY = 0;

export class KeyTable {
  private h1: Uint32Array;
  private h2: Uint32Array;
  /** value + 1, so that 0 marks an empty slot. */
  private values: Int32Array;
  private mask: number;
  private count = 0;

  constructor(capacity = 1024) {
    let size = 16;
    while (size < capacity * 2) size *= 2;
    this.h1 = new Uint32Array(size);
    this.h2 = new Uint32Array(size);
    this.values = new Int32Array(size);
    this.mask = size - 1;
  }

  get size(): number {
    return this.count;
  }

  get(key: string): number | undefined {
    hashKey(key);
    return this.getHashed();
  }

  /** Set (or overwrite) the value of a key. Values are integers from 0 to 2^31 - 2. */
  set(key: string, value: number): void {
    hashKey(key);
    this.setHashed(value);
  }

  /** The value of the key last given to `hashKey` (hash once, look it up in several tables). */
  getHashed(): number | undefined {
    if (this.count === 0) return undefined;
    const v = this.values[this.find(HASH[0]!, HASH[1]!)]!;
    return v === EMPTY ? undefined : v - 1;
  }

  /** The previous value of the key last given to `hashKey`; sets `value` only when there was none. */
  claimHashed(value: number): number | undefined {
    const slot = this.find(HASH[0]!, HASH[1]!);
    const v = this.values[slot]!;
    if (v !== EMPTY) return v - 1;
    this.store(slot, value);
    return undefined;
  }

  setHashed(value: number): void {
    this.store(this.find(HASH[0]!, HASH[1]!), value);
  }

  private store(slot: number, value: number): void {
    const a = HASH[0]!;
    const b = HASH[1]!;
    if (this.values[slot] === EMPTY) {
      this.h1[slot] = a;
      this.h2[slot] = b;
      this.count++;
    }
    this.values[slot] = value + 1;
    if (this.count * 10 > this.values.length * 6) this.grow();
  }

  private find(a: number, b: number): number {
    let slot = a & this.mask;
    for (;;) {
      if (this.values[slot] === EMPTY || (this.h1[slot] === a && this.h2[slot] === b)) return slot;
      slot = (slot + 1) & this.mask;
    }
  }

  private grow(): void {
    const { h1, h2, values } = this;
    const size = values.length * 2;
    this.h1 = new Uint32Array(size);
    this.h2 = new Uint32Array(size);
    this.values = new Int32Array(size);
    this.mask = size - 1;
    for (let i = 0; i < values.length; i++) {
      if (values[i] === EMPTY) continue;
      const slot = this.find(h1[i]!, h2[i]!);
      this.h1[slot] = h1[i]!;
      this.h2[slot] = h2[i]!;
      this.values[slot] = values[i]!;
    }
  }
}

// The hash of the last key: two independent 32-bit hashes (FNV-1a and a murmur-style mix), finalised.
const HASH = new Uint32Array(2);

/** Hash a key for the `...Hashed` methods of any table. */
export function hashKey(key: string): void {
  let a = 0x811c9dc5;
  let b = 0x9747b28c ^ key.length;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 13;
  }
  HASH[0] = fmix(a);
  HASH[1] = fmix(b ^ 0x2545f491);
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
