// Rules across records (duplicate ids, emails, identities; one-time-code factors owned by another user),
// in bounded memory: identifiers are kept as 64-bit hashes in compact tables pointing at the record's
// ordinal, every record's origin is packed into one number so a later record can name the earlier one, and the
// problems found are kept as numbers in a ClashLog (rendered again when shown), however many duplicates there are.
import { CLASH, ClashLog, type ClashKind } from './clash-log.js';
import { hashKey, KeyTable } from './key-table.js';
import { RecordPlaces } from './record-places.js';
import type { RuleContext } from './rule-context.js';
import type { CanonicalUser, RecordOrigin } from './types.js';

export interface CrossRecordIndex {
  /** Register a record and check it against the ones before; late problems (on earlier records) are kept. */
  check(ctx: RuleContext, record: CanonicalUser): number;
  /** Every problem found across records, as numbers: late ones (on earlier records) and each record's own. */
  readonly clashes: ClashLog;
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

/** Emails or phones: who owns each, who uses each as a one-time-code factor, and the clash each rule names. */
interface IdentifierSpace {
  owners: Owners;
  factors: KeyTable;
  roleKind: ClashKind;
  factorKind: ClashKind;
}

/** Both records of a clash: the later one now (on its own problems), the earlier one late, once per rule. */
function clash(clashes: ClashLog, ctx: RuleContext, earlier: number, me: number, code: number): void {
  ctx.problems.push(clashes.current(me, code, earlier));
  clashes.flagEarlier(earlier, code, me);
}

/**
 * A user's emails (or phones): the login one must be unique among users in its role; a one-time-code
 * factor must not use another user's identifier, and no earlier user's factor may use ours.
 */
function identifiers(
  clashes: ClashLog,
  ctx: RuleContext,
  me: number,
  values: string[],
  login: string | undefined,
  loginRole: boolean,
  factor: string | undefined,
  space: IdentifierSpace,
): void {
  const { owners, factors } = space;
  for (const value of values) {
    hashKey(value);
    const role = loginRole && value === login;
    owners.claim(value, me, role);
    if (role && owners.prevRole !== undefined && owners.prevRole !== me)
      clash(clashes, ctx, owners.prevRole, me, clashes.code(space.roleKind));
    // The factor belongs to an earlier user: this record's problem only (the earlier one did nothing wrong).
    if (value === factor && owners.prevFirst !== undefined && owners.prevFirst !== me)
      ctx.problems.push(clashes.current(me, clashes.code(space.factorKind), owners.prevFirst));
    // An earlier user's factor is one of ours: that user's problem, named late.
    const holder = factors.getHashed();
    if (holder !== undefined && holder !== me) clashes.flagEarlier(holder, clashes.code(space.factorKind), me);
    if (value === factor) factors.claimHashed(me);
  }
}

export function createCrossRecordIndex(): CrossRecordIndex {
  const places = new RecordPlaces();
  const byId = new KeyTable();
  const byExternalId = new KeyTable();
  const byThirdParty = new KeyTable();
  const emails: IdentifierSpace = { owners: new Owners(), factors: new KeyTable(), roleKind: CLASH.email, factorKind: CLASH.otpEmail };
  const phones: IdentifierSpace = { owners: new Owners(), factors: new KeyTable(), roleKind: CLASH.phone, factorKind: CLASH.otpPhone };
  // The log names records through `places` only: kept after the pass, it keeps none of the tables above alive.
  const clashes = new ClashLog(places);

  function unique(ctx: RuleContext, table: KeyTable, key: string, me: number, code: number): void {
    hashKey(key);
    const earlier = table.claimHashed(me);
    if (earlier !== undefined) clash(clashes, ctx, earlier, me, code);
  }

  return {
    originOf: (ordinal) => places.originOf(ordinal),
    idOf: (ordinal) => places.idOf(ordinal),
    clashes,
    check(ctx, record) {
      const me = places.push(ctx.origin, record.id);
      if (record.id !== '') {
        hashKey(record.id);
        const earlier = byId.claimHashed(me);
        // The id itself is kept, so a hash collision is told apart from a real duplicate.
        if (earlier !== undefined && places.idOf(earlier) === record.id) clash(clashes, ctx, earlier, me, clashes.code(CLASH.id));
      }
      if (record.externalUserId !== undefined) unique(ctx, byExternalId, record.externalUserId, me, clashes.code(CLASH.externalUserId));
      const otp = record.otpFactors;
      const ownEmails: string[] = [];
      if (record.email !== undefined) ownEmails.push(record.email);
      if (record.thirdParty) {
        for (let i = 0; i < record.thirdParty.length; i++) {
          const tp = record.thirdParty[i]!;
          unique(ctx, byThirdParty, `${tp.providerId}\u0000${tp.userId}`, me, clashes.code(CLASH.thirdParty, i, tp.providerId));
          if (tp.email !== undefined && !ownEmails.includes(tp.email)) ownEmails.push(tp.email);
        }
      }
      if (otp?.email !== undefined && !ownEmails.includes(otp.email)) ownEmails.push(otp.email);
      identifiers(clashes, ctx, me, ownEmails, record.email, record.password !== undefined, otp?.email, emails);
      if (record.phoneNumber !== undefined || otp?.phoneNumber !== undefined) {
        const ownPhones: string[] = [];
        if (record.phoneNumber !== undefined) ownPhones.push(record.phoneNumber);
        if (otp?.phoneNumber !== undefined && otp.phoneNumber !== record.phoneNumber) ownPhones.push(otp.phoneNumber);
        identifiers(clashes, ctx, me, ownPhones, record.phoneNumber, true, otp?.phoneNumber, phones);
      }
      return me;
    },
  };
}
