// A first export and a newer one for the cutover-sync tests: every kind of change, in disjoint groups of users
// whose sizes the test knows (so the dry run's prediction and the sync's changes can be checked exactly).
import { randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';
import base32 from 'hi-base32';
import type { CanonicalUser } from '../../src/records/types.js';
import { generateUsers } from './users.js';

export interface SyncSizes {
  users: number;
  new: number;
  password: number;
  email: number;
  devicesRemoved: number;
  devicesAdded: number;
  disabled: number;
  deleted: number;
  profile: number;
}

export interface SyncSets {
  base: CanonicalUser[];
  newer: CanonicalUser[];
  /** email -> password in the first export (for the users whose hash changes: the old password). */
  passwords: Map<string, string>;
  /** The users whose hash changed: email, old password, new password. */
  changedPasswords: Array<{ email: string; old: string; now: string }>;
  /** The users whose email changed: id, old email, new email. */
  changedEmails: Array<{ id: string; old: string; now: string }>;
  deleted: string[];
  disabled: string[];
  devicesRemoved: string[];
  devicesAdded: string[];
  profile: string[];
  added: string[];
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

export function buildSyncSets(sizes: SyncSizes, prefix = 's'): SyncSets {
  const first = generateUsers(sizes.users, { prefix });
  // Some users start with metadata and a role, so a change can also remove a key and a role.
  first.users.forEach((u, i) => {
    if (i % 10 === 1) {
      u.metadata = { tier: 'basic', since: i };
      u.roles = ['viewer'];
    }
  });
  const base = first.users;
  const newer = clone(base);
  const taken = new Set<string>();
  const pick = (n: number, ok: (u: CanonicalUser) => boolean): CanonicalUser[] => {
    const out: CanonicalUser[] = [];
    for (const u of newer) {
      if (out.length === n) break;
      if (taken.has(u.id) || !ok(u)) continue;
      taken.add(u.id);
      out.push(u);
    }
    if (out.length < n) throw new Error(`only ${out.length} users fit a change group of ${n}`);
    return out;
  };
  const plain = (u: CanonicalUser) => !u.thirdParty && !u.otpFactors && !u.phoneNumber && !u.externalUserId;
  const newHashes = [0, 1, 2, 3].map((k) => ({ password: `changed-${k}-Secret!`, hash: bcrypt.hashSync(`changed-${k}-Secret!`, 4) }));
  const changedPasswords = pick(sizes.password, (u) => !!u.password && u.password.hash.startsWith('$2') && !u.totp).map((u, k) => {
    const h = newHashes[k % newHashes.length]!;
    const old = first.passwords.get(u.email!)!;
    u.password = { hash: h.hash };
    return { email: u.email!, old, now: h.password };
  });
  const changedEmails = pick(sizes.email, (u) => !!u.password && plain(u) && !u.totp).map((u) => {
    const old = u.email!;
    u.email = old.replace('@', '.moved@');
    return { id: u.id, old, now: u.email };
  });
  const devicesRemoved = pick(sizes.devicesRemoved, (u) => !!u.totp?.length).map((u) => {
    delete u.totp;
    return u.id;
  });
  const devicesAdded = pick(sizes.devicesAdded, (u) => !u.totp?.length && !!u.password && plain(u)).map((u) => {
    u.totp = [{ secret: base32.encode(randomBytes(20)).replace(/=+$/, ''), deviceName: 'added-later' }];
    return u.id;
  });
  const disabled = pick(sizes.disabled, (u) => !!u.password && plain(u)).map((u) => {
    u.disabled = true;
    return u.id;
  });
  const profile = pick(sizes.profile, (u) => !!u.metadata).map((u) => {
    u.metadata = { tier: 'gold', upgraded: true };
    u.roles = ['member'];
    return u.id;
  });
  const deleted = pick(sizes.deleted, () => true).map((u) => u.id);
  const gone = new Set(deleted);
  const added = generateUsers(sizes.new, { prefix: `${prefix}n` }).users;
  return {
    base,
    newer: [...newer.filter((u) => !gone.has(u.id)), ...added],
    passwords: first.passwords,
    changedPasswords,
    changedEmails,
    deleted,
    disabled,
    devicesRemoved,
    devicesAdded,
    profile,
    added: added.map((u) => u.id),
  };
}
