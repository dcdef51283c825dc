// An append-only list of strings kept as UTF-8 bytes in one growing buffer, for the cross-record checks over
// millions of records: a source id costs its bytes plus 4 (a V8 string costs about 24 bytes more, and a
// pointer in an array), and the garbage collector has one object to trace instead of a million.

export class PackedStrings {
  private bytes = Buffer.allocUnsafe(64 * 1024);
  private used = 0;
  /** ends[i] is the byte offset just past string i. */
  private ends = new Uint32Array(1024);
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(value: string): void {
    // Source ids are nearly always ASCII: copied in JS (no call into C++ per id); otherwise Buffer.write.
    let need = value.length;
    let ascii = true;
    for (let i = 0; i < value.length; i++) {
      if (value.charCodeAt(i) > 0x7f) {
        ascii = false;
        need = Buffer.byteLength(value, 'utf8');
        break;
      }
    }
    if (this.used + need > this.bytes.length) this.growBytes(this.used + need);
    if (ascii) {
      const b = this.bytes;
      for (let i = 0, at = this.used; i < value.length; i++, at++) b[at] = value.charCodeAt(i);
    } else {
      this.bytes.write(value, this.used, need, 'utf8');
    }
    this.used += need;
    if (this.count === this.ends.length) {
      const grown = new Uint32Array(Math.ceil(this.ends.length * 1.5));
      grown.set(this.ends);
      this.ends = grown;
    }
    this.ends[this.count++] = this.used;
  }

  /** The string at `index` ('' past the end). */
  get(index: number): string {
    if (index < 0 || index >= this.count) return '';
    const start = index === 0 ? 0 : this.ends[index - 1]!;
    return this.bytes.toString('utf8', start, this.ends[index]!);
  }

  private growBytes(min: number): void {
    if (min > 0xffffffff) throw new RangeError('PackedStrings: more than 4 GB of strings');
    // By half again, not double: less room left unused at the end (this holds millions of strings).
    let size = Math.ceil(this.bytes.length * 1.5);
    while (size < min) size = Math.ceil(size * 1.5);
    const grown = Buffer.allocUnsafe(Math.min(size, 0xffffffff));
    this.bytes.copy(grown, 0, 0, this.used);
    this.bytes = grown;
  }
}
