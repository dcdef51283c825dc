// Rules across records (duplicate ids, emails, identities; one-time-code factors owned by another user),
// in bounded memory: one compact map per identifier kind, pointing at the record's ordinal, and the origin of
// every record packed into one number so a later record can name the earlier one.
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

export function createCrossRecordIndex(): CrossRecordIndex {
  const files: string[] = [];
  const fileIndex = new Map<string, number>();
  const origins: number[] = [];
  const ids: string[] = [];
  const byId = new Map<string, number>();
  const byExternalId = new Map<string, number>();
  const byPasswordEmail = new Map<string, number>();
  const byThirdParty = new Map<string, number>();
  const bySignInPhone = new Map<string, number>();
  const anyEmail = new Map<string, number>();
  const anyPhone = new Map<string, number>();
  const factorEmail = new Map<string, number>();
  const factorPhone = new Map<string, number>();
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
    const id = ids[ordinal];
    return `${describeOrigin(originOf(ordinal))}${id ? ` (id ${id})` : ''}`;
  }

  /** Report on the earlier record once per rule, naming the later one. */
  function flagEarlier(earlier: number, rule: string, field: string | undefined, message: string): void {
    const key = `${rule}\u0000${earlier}`;
    if (lateFlagged.has(key)) return;
    lateFlagged.add(key);
    const ctx: RuleContext = { origin: originOf(earlier), problems: [] };
    if (ids[earlier]) ctx.sourceId = ids[earlier];
    flag(ctx, 'error', rule, field, message);
    late.push({ ordinal: earlier, problem: ctx.problems[0]! });
  }

  /** A plain uniqueness rule: the later record is flagged now, the earlier one late. */
  function unique(ctx: RuleContext, map: Map<string, number>, key: string, me: number, rule: string, field: string, what: string): void {
    const earlier = map.get(key);
    if (earlier === undefined) {
      map.set(key, me);
      return;
    }
    if (earlier === me) return;
    flag(ctx, 'error', rule, field, `${what} is also used by ${who(earlier)}; it must be unique: fix or remove one of the two records`);
    flagEarlier(earlier, rule, field, `${what} is also used by ${who(me)}; it must be unique: fix or remove one of the two records`);
  }

  /** A one-time-code email/phone must not be an identifier of another user. */
  function ownedFactor(ctx: RuleContext, me: number, owned: string[], factor: string | undefined, any: Map<string, number>, factors: Map<string, number>, field: string, what: string): void {
    if (factor !== undefined) {
      const owner = any.get(factor);
      if (owner !== undefined && owner !== me) {
        flag(ctx, 'error', 'otp.conflict', field, `the one-time-code ${what} belongs to another user, ${who(owner)}; codes would go to the wrong person: correct it or drop the factor`);
      }
    }
    for (const value of owned) {
      const holder = factors.get(value);
      if (holder !== undefined && holder !== me) {
        flagEarlier(holder, 'otp.conflict', field, `the one-time-code ${what} belongs to another user, ${who(me)}; codes would go to the wrong person: correct it or drop the factor`);
      }
    }
    for (const value of owned) if (!any.has(value)) any.set(value, me);
    if (factor !== undefined && !factors.has(factor)) factors.set(factor, me);
  }

  return {
    originOf,
    idOf: (ordinal) => ids[ordinal] ?? '',
    lateProblems: () => late,
    check(ctx, record) {
      const me = origins.length;
      origins.push(pack(ctx.origin));
      ids.push(record.id);
      if (record.id !== '') unique(ctx, byId, record.id, me, 'id.duplicate', 'id', 'the id');
      if (record.externalUserId !== undefined) unique(ctx, byExternalId, record.externalUserId, me, 'externalUserId.duplicate', 'externalUserId', 'the externalUserId');
      if (record.password !== undefined && record.email !== undefined) {
        unique(ctx, byPasswordEmail, record.email, me, 'email.duplicate', 'email', 'the email (of a user with a password)');
      }
      const emails: string[] = [];
      if (record.email !== undefined) emails.push(record.email);
      if (record.thirdParty) {
        for (let i = 0; i < record.thirdParty.length; i++) {
          const tp = record.thirdParty[i]!;
          unique(ctx, byThirdParty, `${tp.providerId}\u0000${tp.userId}`, me, 'thirdParty.duplicate', `thirdParty[${i}]`, `the ${tp.providerId} identity`);
          if (tp.email !== undefined && tp.email !== record.email) emails.push(tp.email);
        }
      }
      const phones: string[] = [];
      if (record.phoneNumber !== undefined) {
        unique(ctx, bySignInPhone, record.phoneNumber, me, 'phone.duplicate', 'phoneNumber', 'the sign-in phone number');
        phones.push(record.phoneNumber);
      }
      const otp = record.otpFactors;
      if (otp?.email !== undefined) emails.push(otp.email);
      if (otp?.phoneNumber !== undefined) phones.push(otp.phoneNumber);
      ownedFactor(ctx, me, emails, otp?.email, anyEmail, factorEmail, 'otpFactors.email', 'email');
      ownedFactor(ctx, me, phones, otp?.phoneNumber, anyPhone, factorPhone, 'otpFactors.phoneNumber', 'phone number');
      return me;
    },
  };
}
