// Rules across records (duplicate ids, emails, identities; one-time-code factors owned by another user),
// in bounded memory: identifiers are kept as 64-bit hashes in compact tables pointing at the record's
// ordinal, and every record's origin is packed into one number so a later record can name the earlier one.
import { hashKey, KeyTable } from './key-table.js';
import { PackedStrings } from './packed-strings.js';
import { flag, type RuleContext } from './rule-context.js';
import { describeOrigin, type CanonicalUser, type Problem, type RecordOrigin } from './types.js';

const POS = 2 ** 32;

export interface CrossRecordIndex {
  /** Register a record and check it against the ones before; late problems (on earlier records) are kept. */
  check(ctx: RuleContext, record: CanonicalUser): number;
  /** Problems on earlier records, found when a later record arrived, with the ordinal they name. */
  lateProblems(): Array<{ ordinal: number; problem: Problem }>;
  originOf(ordinal: number): RecordOrigin;
  idOf(ordinal: number): string;
}

/**
 * Who first used an identifier, and who first used it in a role that must be unique (a password user's
 * email, a sign-in phone): the role is a bit beside the first owner, with a small side map for the rare case
 * where the first owner does not have the role.
 */
class Owners {
  private first = new KeyTable();
  private inRole = new Map<string, number>();
  /** Set by `claim`: the earlier owners (undefined when none). */
  prevFirst: number | undefined;
  prevRole: number | undefined;

  /** After hashKey(key): remember the earlier owners, and record this one. */
  claim(key: string, ordinal: number, role: boolean): void {
    const v = this.first.claimHashed(ordinal * 2 + (role ? 1 : 0));
    if (v === undefined) {
      this.prevFirst = this.prevRole = undefined;
      return;
    }
    this.prevFirst = Math.floor(v / 2);
    this.prevRole = v % 2 === 1 ? this.prevFirst : this.inRole.size > 0 ? this.inRole.get(key) : undefined;
    if (role && this.prevRole === undefined) this.inRole.set(key, ordinal);
  }
}

export function createCrossRecordIndex(): CrossRecordIndex {
  const files: string[] = [];
  const fileIndex = new Map<string, number>();
  // Every record's packed origin (a double holds it exactly) and its id: typed storage, not arrays of values.
  let origins = new Float64Array(1024);
  const ids = new PackedStrings();
  const byId = new KeyTable();
  const byExternalId = new KeyTable();
  const byThirdParty = new KeyTable();
  const emails = new Owners();
  const phones = new Owners();
  const factorEmail = new KeyTable();
  const factorPhone = new KeyTable();
  const late: Array<{ ordinal: number; problem: Problem }> = [];
  const lateFlagged = new Set<string>();

  function pack(origin: RecordOrigin): number {
    let f = fileIndex.get(origin.file);
    if (f === undefined) {
      f = files.length;
      files.push(origin.file);
      fileIndex.set(origin.file, f);
    }
    const kind = origin.line !== undefined ? 1 : origin.index !== undefined ? 2 : 0;
    const pos = origin.line ?? origin.index ?? 0;
    return (f * 4 + kind) * POS + pos;
  }

  function originOf(ordinal: number): RecordOrigin {
    const packed = origins[ordinal]!;
    const high = Math.floor(packed / POS);
    const pos = packed - high * POS;
    const origin: RecordOrigin = { file: files[high >> 2]! };
    if ((high & 3) === 1) origin.line = pos;
    else if ((high & 3) === 2) origin.index = pos;
    return origin;
  }

  function who(ordinal: number): string {
    const id = ids.get(ordinal);
    return `${describeOrigin(originOf(ordinal))}${id ? ` (id ${id})` : ''}`;
  }

  /** Report on the earlier record once per rule, naming the later one. */
  function flagEarlier(earlier: number, rule: string, field: string | undefined, message: string): void {
    const key = `${rule}\u0000${earlier}`;
    if (lateFlagged.has(key)) return;
    lateFlagged.add(key);
    const ctx: RuleContext = { origin: originOf(earlier), problems: [] };
    const id = ids.get(earlier);
    if (id) ctx.sourceId = id;
    flag(ctx, 'error', rule, field, message);
    late.push({ ordinal: earlier, problem: ctx.problems[0]! });
  }

  /** Both records of a clash: the later one now, the earlier one late. */
  function clash(ctx: RuleContext, earlier: number, me: number, rule: string, field: string, what: string): void {
    flag(ctx, 'error', rule, field, `${what} is also used by ${who(earlier)}; it must be unique: fix or remove one of the two records`);
    flagEarlier(earlier, rule, field, `${what} is also used by ${who(me)}; it must be unique: fix or remove one of the two records`);
  }

  function unique(ctx: RuleContext, table: KeyTable, key: string, me: number, rule: string, field: string, what: string): void {
    hashKey(key);
    const earlier = table.claimHashed(me);
    if (earlier !== undefined) clash(ctx, earlier, me, rule, field, what);
  }

  /**
   * A user's emails (or phones): the login one must be unique among users in its role; a one-time-code
   * factor must not use another user's identifier, and no earlier user's factor may use ours.
   */
  function identifiers(
    ctx: RuleContext,
    me: number,
    values: string[],
    login: string | undefined,
    loginRole: boolean,
    factor: string | undefined,
    owners: Owners,
    factors: KeyTable,
    roleRule: string,
    roleWhat: string,
    factorField: string,
    what: string,
  ): void {
    for (const value of values) {
      hashKey(value);
      const role = loginRole && value === login;
      owners.claim(value, me, role);
      if (role && owners.prevRole !== undefined && owners.prevRole !== me)
        clash(ctx, owners.prevRole, me, roleRule, roleRule === 'email.duplicate' ? 'email' : 'phoneNumber', roleWhat);
      if (value === factor && owners.prevFirst !== undefined && owners.prevFirst !== me) {
        flag(
          ctx,
          'error',
          'otp.conflict',
          factorField,
          `the one-time-code ${what} belongs to another user, ${who(owners.prevFirst)}; codes would go to the wrong person: correct it or drop the factor`,
        );
      }
      const holder = factors.getHashed();
      if (holder !== undefined && holder !== me) {
        flagEarlier(
          holder,
          'otp.conflict',
          factorField,
          `the one-time-code ${what} belongs to another user, ${who(me)}; codes would go to the wrong person: correct it or drop the factor`,
        );
      }
      if (value === factor) factors.claimHashed(me);
    }
  }

  return {
    originOf,
    idOf: (ordinal) => ids.get(ordinal),
    lateProblems: () => late,
    check(ctx, record) {
      const me = ids.length;
      if (me === origins.length) {
        const grown = new Float64Array(origins.length * 2);
        grown.set(origins);
        origins = grown;
      }
      origins[me] = pack(ctx.origin);
      ids.push(record.id);
      if (record.id !== '') {
        hashKey(record.id);
        const earlier = byId.claimHashed(me);
        // The id itself is kept, so a hash collision is told apart from a real duplicate.
        if (earlier !== undefined && ids.get(earlier) === record.id) clash(ctx, earlier, me, 'id.duplicate', 'id', 'the id');
      }
      if (record.externalUserId !== undefined)
        unique(ctx, byExternalId, record.externalUserId, me, 'externalUserId.duplicate', 'externalUserId', 'the externalUserId');
      const otp = record.otpFactors;
      const ownEmails: string[] = [];
      if (record.email !== undefined) ownEmails.push(record.email);
      if (record.thirdParty) {
        for (let i = 0; i < record.thirdParty.length; i++) {
          const tp = record.thirdParty[i]!;
          unique(
            ctx,
            byThirdParty,
            `${tp.providerId}\u0000${tp.userId}`,
            me,
            'thirdParty.duplicate',
            `thirdParty[${i}]`,
            `the ${tp.providerId} identity`,
          );
          if (tp.email !== undefined && !ownEmails.includes(tp.email)) ownEmails.push(tp.email);
        }
      }
      if (otp?.email !== undefined && !ownEmails.includes(otp.email)) ownEmails.push(otp.email);
      identifiers(
        ctx,
        me,
        ownEmails,
        record.email,
        record.password !== undefined,
        otp?.email,
        emails,
        factorEmail,
        'email.duplicate',
        'the email (of a user with a password)',
        'otpFactors.email',
        'email',
      );
      if (record.phoneNumber !== undefined || otp?.phoneNumber !== undefined) {
        const ownPhones: string[] = [];
        if (record.phoneNumber !== undefined) ownPhones.push(record.phoneNumber);
        if (otp?.phoneNumber !== undefined && otp.phoneNumber !== record.phoneNumber) ownPhones.push(otp.phoneNumber);
        identifiers(
          ctx,
          me,
          ownPhones,
          record.phoneNumber,
          true,
          otp?.phoneNumber,
          phones,
          factorPhone,
          'phone.duplicate',
          'the sign-in phone number',
          'otpFactors.phoneNumber',
          'phone number',
        );
      }
      return me;
    },
  };
}
