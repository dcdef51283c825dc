// The cross-record problems of a validation pass, kept as numbers instead of Problem objects: each clash is three
// 32-bit words (the record it belongs to, what it is, the record it names), so a file of duplicates (an export
// concatenated twice: every record a clash, twice) costs 12 bytes a problem instead of about 500, and memory stays
// bounded by the records. Problems are rendered again, with the same words, when they are shown or replayed.
import { describeOrigin, type Problem, type RecordOrigin } from './types.js';

/** The kinds of clash, in the order of their rules' bits (one "already flagged" bit set per rule). */
export const CLASH = {
  id: 0,
  externalUserId: 1,
  thirdParty: 2,
  email: 3,
  phone: 4,
  otpEmail: 5,
  otpPhone: 6,
} as const;
export type ClashKind = (typeof CLASH)[keyof typeof CLASH];

const RULES = [
  'id.duplicate',
  'externalUserId.duplicate',
  'thirdParty.duplicate',
  'email.duplicate',
  'phone.duplicate',
  'otp.conflict',
  'otp.conflict',
];
/** One "the earlier record was flagged" bit per rule: otp.conflict's two kinds share one, as their rule does. */
const RULE_SLOT = [0, 1, 2, 3, 4, 5, 5];

/** Where the records are and what they are called: the cross-record index answers both. */
export interface RecordNames {
  originOf(ordinal: number): RecordOrigin;
  idOf(ordinal: number): string;
}

/** An append-only list of [subject, code, other] triples in one growing Uint32Array. */
class Triples {
  private words = new Uint32Array(3 * 256);
  length = 0;

  push(subject: number, code: number, other: number): void {
    const at = this.length * 3;
    if (at + 3 > this.words.length) {
      const grown = new Uint32Array(this.words.length * 2);
      grown.set(this.words);
      this.words = grown;
    }
    this.words[at] = subject;
    this.words[at + 1] = code;
    this.words[at + 2] = other;
    this.length++;
  }

  subject(i: number): number {
    return this.words[i * 3]!;
  }
  code(i: number): number {
    return this.words[i * 3 + 1]!;
  }
  other(i: number): number {
    return this.words[i * 3 + 2]!;
  }
}

export class ClashLog {
  /** Problems of the record being checked, naming an earlier one: in record order (subject ascending). */
  private readonly now = new Triples();
  /** Problems of an earlier record, found when a later one arrived: one per rule and earlier record. */
  private readonly late = new Triples();
  private flagged: Uint8Array[] = Array.from({ length: 6 }, () => new Uint8Array(128));
  private readonly providers: string[] = [];
  private readonly providerIndex = new Map<string, number>();
  /** Late entries sorted by the record they belong to; made once, when the pass ends. */
  private lateOrder: Uint32Array | undefined;

  constructor(readonly names: RecordNames) {}

  /** A code: the kind, the index of a third-party entry, and the provider (interned: a few ids per export). */
  code(kind: ClashKind, index = 0, provider?: string): number {
    let p = 0;
    if (provider !== undefined) {
      const known = this.providerIndex.get(provider);
      if (known !== undefined) p = known;
      else if (this.providers.length < 0xffff) {
        p = this.providers.length;
        this.providers.push(provider);
        this.providerIndex.set(provider, p);
      } else p = 0xffff;
    }
    return kind | (Math.min(index, 0x1fff) << 3) | (p << 16);
  }

  /** The record `me` clashes with `earlier`: its problem, now (returned, for the record's own pass). */
  current(me: number, code: number, earlier: number): Problem {
    this.now.push(me, code, earlier);
    return this.render(me, code, earlier);
  }

  /** The earlier record's side of a clash, once per rule: false when it was already flagged for that rule. */
  flagEarlier(earlier: number, code: number, me: number): boolean {
    const slot = RULE_SLOT[code & 7]!;
    let bits = this.flagged[slot]!;
    if (earlier >> 3 >= bits.length) {
      let size = bits.length * 2;
      while (earlier >> 3 >= size) size *= 2;
      const grown = new Uint8Array(size);
      grown.set(bits);
      this.flagged[slot] = bits = grown;
    }
    const bit = 1 << (earlier & 7);
    if (bits[earlier >> 3]! & bit) return false;
    bits[earlier >> 3]! |= bit;
    this.late.push(earlier, code, me);
    this.lateOrder = undefined;
    return true;
  }

  get lateCount(): number {
    return this.late.length;
  }

  /** Every late problem, rendered one at a time (nothing is kept), in the order they were found. */
  *lateProblems(): Generator<{ ordinal: number; problem: Problem }> {
    for (let i = 0; i < this.late.length; i++) {
      const earlier = this.late.subject(i);
      yield { ordinal: earlier, problem: this.render(earlier, this.late.code(i), this.late.other(i)) };
    }
  }

  /**
   * A reader for a pass over the same records in order: the cross-record problems each record got in its own pass,
   * then its late ones. Ordinals must be asked in increasing order (a cursor walks each list once).
   */
  replayer(): (ordinal: number) => { now: Problem[]; late: Problem[] } {
    const order = this.sortedLate();
    let n = 0;
    let l = 0;
    return (ordinal) => {
      const now: Problem[] = [];
      const late: Problem[] = [];
      while (n < this.now.length && this.now.subject(n) < ordinal) n++;
      for (; n < this.now.length && this.now.subject(n) === ordinal; n++)
        now.push(this.render(ordinal, this.now.code(n), this.now.other(n)));
      while (l < order.length && this.late.subject(order[l]!) < ordinal) l++;
      for (; l < order.length && this.late.subject(order[l]!) === ordinal; l++)
        late.push(this.render(ordinal, this.late.code(order[l]!), this.late.other(order[l]!)));
      return { now, late };
    };
  }

  /** The late problems of every record that has some, by ordinal: for a lookup out of order (few records). */
  lateOf(ordinal: number): Problem[] {
    const order = this.sortedLate();
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.late.subject(order[mid]!) < ordinal) lo = mid + 1;
      else hi = mid;
    }
    const out: Problem[] = [];
    for (let i = lo; i < order.length && this.late.subject(order[i]!) === ordinal; i++)
      out.push(this.render(ordinal, this.late.code(order[i]!), this.late.other(order[i]!)));
    return out;
  }

  /** The ordinals that have late problems, each once, ascending. */
  *lateOrdinals(): Generator<number> {
    const order = this.sortedLate();
    let last = -1;
    for (const i of order) {
      const s = this.late.subject(i);
      if (s !== last) yield s;
      last = s;
    }
  }

  private sortedLate(): Uint32Array {
    if (!this.lateOrder) {
      const order = new Uint32Array(this.late.length);
      for (let i = 0; i < order.length; i++) order[i] = i;
      // Stable by construction: ties keep the order found (the index breaks them).
      order.sort((a, b) => this.late.subject(a) - this.late.subject(b) || a - b);
      this.lateOrder = order;
    }
    return this.lateOrder;
  }

  /** The problem of `subject` naming `other`, as the rule words it. */
  private render(subject: number, code: number, other: number): Problem {
    const kind = (code & 7) as ClashKind;
    const index = (code >>> 3) & 0x1fff;
    const p = code >>> 16;
    const provider = p < this.providers.length ? this.providers[p]! : 'third-party';
    const origin = this.names.originOf(subject);
    const id = this.names.idOf(subject);
    const who = `${describeOrigin(this.names.originOf(other))}${this.names.idOf(other) ? ` (id ${this.names.idOf(other)})` : ''}`;
    const [field, message] = wording(kind, index, provider, who);
    const problem: Problem = { severity: 'error', rule: RULES[kind]!, origin, message };
    if (id) problem.sourceId = id;
    problem.field = field;
    return problem;
  }
}

const UNIQUE = 'it must be unique: fix or remove one of the two records';
const WRONG_PERSON = 'codes would go to the wrong person: correct it or drop the factor';

function wording(kind: ClashKind, index: number, provider: string, who: string): [string, string] {
  switch (kind) {
    case CLASH.id:
      return ['id', `the id is also used by ${who}; ${UNIQUE}`];
    case CLASH.externalUserId:
      return ['externalUserId', `the externalUserId is also used by ${who}; ${UNIQUE}`];
    case CLASH.thirdParty:
      return [`thirdParty[${index}]`, `the ${provider} identity is also used by ${who}; ${UNIQUE}`];
    case CLASH.email:
      return ['email', `the email (of a user with a password) is also used by ${who}; ${UNIQUE}`];
    case CLASH.phone:
      return ['phoneNumber', `the sign-in phone number is also used by ${who}; ${UNIQUE}`];
    case CLASH.otpEmail:
      return ['otpFactors.email', `the one-time-code email belongs to another user, ${who}; ${WRONG_PERSON}`];
    default:
      return ['otpFactors.phoneNumber', `the one-time-code phone number belongs to another user, ${who}; ${WRONG_PERSON}`];
  }
}
