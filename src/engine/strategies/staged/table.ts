// `--via bulk-staged`: what the run knows of each user it staged (or found staged, or in doubt after a kill), in
// typed arrays so that a million of them fit in tens of MB: the key of its first login method (a 64-bit hash),
// its state, the join time that identifies it in the core, and the id the core gave its row. Its record is not
// kept: the results are written in a second read of the source (results.ts).
// Invariant: a staged user costs a fixed few dozen bytes here (typed arrays), whatever the size of the run.
import { KeyTable } from '../../../records/key-table.js';
import type { ValidatedRecord } from '../../runner.js';

/** Where a staged user stands. */
export const STAGED = 1; // in the staging list (uploaded, or found there): waiting for the core's job
export const JOB_FAILED = 2; // the job left it FAILED for a reason of its own (the message is kept)
export const EXISTS = 3; // part of it is in the core: the job refused it (or a run in doubt found it there); read back decides
export const CONFIRMED = 4; // read back: in the core, with its login method's join time: imported by this migration
export const PRESENT = 5; // read back: in the core, but not as this migration staged it: the per-user steps complete it
export const REPORTED = 6; // its result is written

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Each byte as two lower-case hex digits. */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
/** The value of a hex digit's character code (0-9, a-f, A-F; the UUID test lets no other through). */
const nibble = (code: number): number => (code <= 57 ? code - 48 : (code | 32) - 87);

export class StagedTable {
  private readonly keys: KeyTable;
  private cap: number;
  private count = 0;
  /** A user's state: read it here, change it with setState (which keeps the counts). */
  state: Uint8Array;
  private readonly perState = new Uint32Array(REPORTED + 1);
  joined: Float64Array;
  /** The row's id (the primary login method's SuperTokens id) as 16 bytes, when the core told it (else zeros). */
  private ids: Uint8Array;
  /** The job's message for JOB_FAILED users; the core's id of users read back whose row id was not known. */
  readonly messages = new Map<number, string>();
  readonly foundIds = new Map<number, string>();
  /** The run's FAILED rows (by row id): removed once the users are settled. */
  readonly failedRows = new Set<string>();
  /** The records themselves, only when the caller cannot read the source again (standard input). */
  inputs: Array<ValidatedRecord | undefined> | undefined;
  /** The indexes of the users whose rows this run put in (or found in) the staging list, in the list's order. */
  private listedOrder: Uint32Array;
  private listedN = 0;

  /**
   * `expected`: the users the run may stage (its total), so that the arrays are made once at their size: growing
   * them by doubling held the old and the new arrays at once, and up to twice the room needed (at a million users
   * about 60 MB more at the peak).
   */
  constructor(expected = 1024) {
    this.cap = Number.isFinite(expected) ? Math.max(1024, Math.ceil(expected)) : 1024;
    this.keys = new KeyTable(this.cap);
    this.state = new Uint8Array(this.cap);
    this.joined = new Float64Array(this.cap);
    this.ids = new Uint8Array(this.cap * 16);
    this.listedOrder = new Uint32Array(this.cap);
  }

  get size(): number {
    return this.count;
  }

  find(key: string): number | undefined {
    return this.keys.get(key);
  }

  /** The user of `key` (added if new), with its join time and state. */
  add(key: string, joined: number, state: number): number {
    let i = this.keys.get(key);
    if (i === undefined) {
      if (this.count === this.cap) this.grow();
      i = this.count++;
      this.keys.set(key, i);
    }
    this.joined[i] = joined;
    this.setState(i, state);
    return i;
  }

  /** User `i`'s row is in the staging list now (after the rows listed before it). */
  markListed(i: number): void {
    if (this.listedN === this.listedOrder.length) {
      const grown = new Uint32Array(this.listedOrder.length * 2);
      grown.set(this.listedOrder);
      this.listedOrder = grown;
    }
    this.listedOrder[this.listedN++] = i;
  }

  /** Rows this run put in (or found in) the staging list. */
  get listedCount(): number {
    return this.listedN;
  }

  /** The table index of the `k`-th row listed (from 0). */
  listedAt(k: number): number {
    return this.listedOrder[k]!;
  }

  setState(i: number, state: number): void {
    const was = this.state[i]!;
    if (was !== 0) this.perState[was]! -= 1;
    this.state[i] = state;
    this.perState[state]! += 1;
  }

  setRowId(i: number, id: string | undefined): void {
    const at = i * 16;
    if (id === undefined || !UUID.test(id)) {
      this.ids.fill(0, at, at + 16);
      return;
    }
    // The 32 hex digits, dashes skipped, two to a byte (no substrings: this runs for every user staged).
    let b = at;
    for (let c = 0; c < 36; c += 2) {
      if (c === 8 || c === 13 || c === 18 || c === 23) c++;
      this.ids[b++] = (nibble(id.charCodeAt(c)) << 4) | nibble(id.charCodeAt(c + 1));
    }
  }

  /** Whether the core told user `i`'s row id (without building it: the read-back asks for every user). */
  hasRowId(i: number): boolean {
    for (let b = i * 16; b < i * 16 + 16; b++) if (this.ids[b] !== 0) return true;
    return false;
  }

  /** User `i`'s row id in lower case, or undefined when the core did not tell it. */
  rowId(i: number): string | undefined {
    if (!this.hasRowId(i)) return undefined;
    let s = '';
    for (let b = i * 16; b < i * 16 + 16; b++) {
      const k = b - i * 16;
      if (k === 4 || k === 6 || k === 8 || k === 10) s += '-';
      s += HEX[this.ids[b]!]!;
    }
    return s;
  }

  /** Indexes in one of the given states. */
  *inState(...states: number[]): IterableIterator<number> {
    for (let i = 0; i < this.count; i++) if (states.includes(this.state[i]!)) yield i;
  }

  /** Users in one of the given states (kept as counts: no walk over the table). */
  countIn(...states: number[]): number {
    return states.reduce((n, s) => n + this.perState[s]!, 0);
  }

  private grow(): void {
    this.cap *= 2;
    const state = new Uint8Array(this.cap);
    state.set(this.state);
    this.state = state;
    const joined = new Float64Array(this.cap);
    joined.set(this.joined);
    this.joined = joined;
    const ids = new Uint8Array(this.cap * 16);
    ids.set(this.ids);
    this.ids = ids;
  }
}
