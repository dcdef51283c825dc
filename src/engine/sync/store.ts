// What a sync knows of each user of the earlier run(s), sized for millions: source id -> whether the user is in
// the core (finished, or removed by a sync since), its fingerprint and the key it is under, and whether the newer
// export has it. About 75 bytes a user in typed arrays (a Map of objects would take several times that).
// Invariant: one fixed-size slot per user of the earlier runs, whatever their number.
import { hashKey, KeyTable } from '../../records/key-table.js';
import { PackedStrings } from '../../records/packed-strings.js';
import { FINGERPRINT_BYTES } from './fingerprint.js';

const FINISHED = 1;
const HAS_FP = 2;
const REMOVED = 4;
const SEEN = 8;

export type BaseState =
  /** In the core as the earlier run left it: its fingerprint says what it was. */
  | { kind: 'finished'; fp?: Uint8Array; keyIndex: number }
  /** Removed by an earlier sync (gone from its export, or disabled under `--disabled skip`). */
  | { kind: 'removed' }
  /** Journalled without a finished outcome (failed, or interrupted): a sync migrates it as a new user. */
  | { kind: 'unfinished' };

export class BaseUsers {
  private readonly table = new KeyTable(1 << 16);
  private readonly ids = new PackedStrings();
  private flags = new Uint8Array(1 << 16);
  private keys = new Uint8Array(1 << 16);
  private fps = new Uint8Array(FINGERPRINT_BYTES << 16);
  /** The fingerprint keys of the journals read, by index. */
  readonly fingerprintKeys: string[] = [];

  get size(): number {
    return this.ids.length;
  }

  /** The rare id whose 64-bit hash another id holds (about 3e-8 for a million). */
  private collided: Map<string, number> | undefined;

  private find(user: string): number | undefined {
    hashKey(user);
    const i = this.table.getHashed();
    if (i !== undefined && this.ids.get(i) === user) return i;
    return this.collided?.get(user);
  }

  private slot(user: string): number {
    const found = this.find(user);
    if (found !== undefined) return found;
    const i = this.ids.length;
    hashKey(user);
    if (this.table.getHashed() === undefined) this.table.setHashed(i);
    else (this.collided ??= new Map()).set(user, i);
    this.ids.push(user);
    if (i >= this.flags.length) this.grow();
    return i;
  }

  private grow(): void {
    const n = this.flags.length * 2;
    const flags = new Uint8Array(n);
    flags.set(this.flags);
    const keys = new Uint8Array(n);
    keys.set(this.keys);
    const fps = new Uint8Array(n * FINGERPRINT_BYTES);
    fps.set(this.fps);
    [this.flags, this.keys, this.fps] = [flags, keys, fps];
  }

  /** A journal line: the user finished (with its fingerprint under key `keyIndex`, or none), failed, or stepped. */
  finished(user: string, fp: Uint8Array | undefined, keyIndex: number): void {
    const i = this.slot(user);
    if (fp === undefined) {
      this.flags[i] = (this.flags[i]! & HAS_FP) | FINISHED; // a later run found it complete: an earlier fp still holds
      return;
    }
    this.flags[i] = FINISHED | HAS_FP;
    this.keys[i] = keyIndex;
    this.fps.set(fp, i * FINGERPRINT_BYTES);
  }

  removed(user: string): void {
    this.flags[this.slot(user)] = REMOVED;
  }

  /** A step or a failure: a user not known yet is unfinished; one finished before stays as it was. */
  touched(user: string): void {
    this.slot(user);
  }

  get(user: string): BaseState | undefined {
    const i = this.find(user);
    if (i === undefined) return undefined;
    const f = this.flags[i]!;
    if (f & REMOVED) return { kind: 'removed' };
    if (!(f & FINISHED)) return { kind: 'unfinished' };
    const fp = f & HAS_FP ? this.fps.subarray(i * FINGERPRINT_BYTES, (i + 1) * FINGERPRINT_BYTES) : undefined;
    return { kind: 'finished', fp, keyIndex: this.keys[i]! };
  }

  /** The newer export has this user. */
  see(user: string): void {
    const i = this.find(user);
    if (i !== undefined) this.flags[i]! |= SEEN;
  }

  /** Users in the core (finished, not removed) that the newer export does not have, in journal order. */
  *unseen(): IterableIterator<string> {
    for (let i = 0; i < this.ids.length; i++) {
      const f = this.flags[i]!;
      if (f & FINISHED && !(f & (REMOVED | SEEN))) yield this.ids.get(i);
    }
  }

  /** How many users are in the core by the journals (finished and not removed since), and how many lack a fingerprint. */
  counts(): { inCore: number; withoutFingerprint: number } {
    let inCore = 0;
    let withoutFingerprint = 0;
    for (let i = 0; i < this.ids.length; i++) {
      const f = this.flags[i]!;
      if (!(f & FINISHED) || f & REMOVED) continue;
      inCore++;
      if (!(f & HAS_FP)) withoutFingerprint++;
    }
    return { inCore, withoutFingerprint };
  }
}
