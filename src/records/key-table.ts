// A compact string -> number table for duplicate detection over millions of records: keys are kept only as
// a 64-bit hash in typed arrays (about 24 bytes an entry instead of ~70 for a Map and its strings).
// Two different keys collide with a probability of about n^2 / 2^65 (3e-8 for a million keys).

const EMPTY = 0;

export class KeyTable {
  /** Slot i is [h1, h2, value + 1] at 3i: one cache line per probe instead of three arrays' (0 marks an empty slot). */
  private slots: Uint32Array;
  private mask: number;
  private count = 0;

  constructor(capacity = 1024) {
    let size = 16;
    while (size < capacity * 2) size *= 2;
    this.slots = new Uint32Array(size * 3);
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
    const v = this.slots[this.find(HASH[0]!, HASH[1]!) + 2]!;
    return v === EMPTY ? undefined : v - 1;
  }

  /** The previous value of the key last given to `hashKey`; sets `value` only when there was none. */
  claimHashed(value: number): number | undefined {
    const at = this.find(HASH[0]!, HASH[1]!);
    const v = this.slots[at + 2]!;
    if (v !== EMPTY) return v - 1;
    this.store(at, value);
    return undefined;
  }

  setHashed(value: number): void {
    this.store(this.find(HASH[0]!, HASH[1]!), value);
  }

  private store(at: number, value: number): void {
    const slots = this.slots;
    if (slots[at + 2] === EMPTY) {
      slots[at] = HASH[0]!;
      slots[at + 1] = HASH[1]!;
      this.count++;
    }
    slots[at + 2] = value + 1;
    if (this.count * 10 > (this.mask + 1) * 6) this.grow();
  }

  /** The index in `slots` of the key's slot, or of the empty slot where it would go. */
  private find(a: number, b: number): number {
    const slots = this.slots;
    let slot = a & this.mask;
    for (;;) {
      const at = slot * 3;
      if (slots[at + 2] === EMPTY || (slots[at] === a && slots[at + 1] === b)) return at;
      slot = (slot + 1) & this.mask;
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Uint32Array(old.length * 2);
    this.mask = (this.mask + 1) * 2 - 1;
    for (let at = 0; at < old.length; at += 3) {
      if (old[at + 2] === EMPTY) continue;
      const to = this.find(old[at]!, old[at + 1]!);
      this.slots[to] = old[at]!;
      this.slots[to + 1] = old[at + 1]!;
      this.slots[to + 2] = old[at + 2]!;
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
