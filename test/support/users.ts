// Generated canonical users for end-to-end runs: every kind of first factor, external ids, TOTP devices,
// one-time-code factors and links, with known passwords (low bcrypt cost keeps the sandbox fast).
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import bcrypt from 'bcryptjs';
import base32 from 'hi-base32';
import type { Step } from '../../src/engine/plan/steps.js';
import type { CanonicalUser } from '../../src/records/types.js';
import { BCRYPT } from './vectors.js';

/** The step that imports `email` with the BCRYPT hash: what the steps path's knowledge of the core is asked about. */
export const passwordStep = (email: string): Step => ({
  kind: 'import-password',
  key: 'password',
  email,
  passwordHash: BCRYPT,
  hashingAlgorithm: 'bcrypt',
});

/** Public vector of the external scrypt variant (shared/formats.md): password `user1password`. */
export const SCRYPT_SIGNER_KEY = 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==';
export const SCRYPT_HASH =
  '$f_scrypt$lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==$42xEC+ixf3L2lw==$m=14$r=8$s=Bw==';
export const SCRYPT_PASSWORD = 'user1password';

export interface GeneratedSet {
  users: CanonicalUser[];
  /** email -> password for every password user. */
  passwords: Map<string, string>;
}

export interface GenerateOptions {
  /** Only password users (some with external ids): the fastest set, for kill/restart tests. */
  simple?: boolean;
  /** Vary ids so two sets never collide in one store. */
  prefix?: string;
}

export function generateUsers(n: number, options: GenerateOptions = {}): GeneratedSet {
  const p = options.prefix ?? 'g';
  const hashes = [0, 1, 2].map((k) => ({ password: `pw-${k}-Secret!`, hash: bcrypt.hashSync(`pw-${k}-Secret!`, 4) }));
  // Phone numbers differ between prefixes so that two sets can share a store.
  const phoneBase = 2_000_000 + ([...p].reduce((n, c) => n + c.charCodeAt(0), 0) % 80) * 10_000;
  const users: CanonicalUser[] = [];
  const passwords = new Map<string, string>();
  for (let i = 0; i < n; i += 1) {
    const email = `${p}${i}@example.test`;
    const phone = `+1415${String(phoneBase + i)}`;
    if (!options.simple && i % 11 === 10) {
      users.push({ id: `${p}${i}`, phoneNumber: phone, ...(i % 2 === 0 ? { externalUserId: `${p}-ext-${i}` } : {}) });
      continue;
    }
    const u: CanonicalUser = { id: `${p}${i}`, email };
    if (!options.simple && i % 13 === 12) {
      u.password = { hash: SCRYPT_HASH };
      passwords.set(email, SCRYPT_PASSWORD);
    } else if (options.simple || i % 9 !== 8) {
      const h = hashes[i % hashes.length]!;
      u.password = { hash: h.hash };
      passwords.set(email, h.password);
    }
    if (i % 3 === 0) u.externalUserId = `${p}-ext-${i}`;
    if (!options.simple) {
      if (i % 5 === 0 || !u.password) u.thirdParty = [{ providerId: 'google', userId: `google-${p}-${i}`, emailVerified: true }];
      if (i % 4 === 0) {
        const bytes = randomBytes(20);
        u.totp = [
          i % 8 === 0
            ? { secret: bytes.toString('hex'), encoding: 'hex', deviceName: 'authenticator' }
            : { secret: base32.encode(bytes).replace(/=+$/, '') },
        ];
      }
      if (i % 7 === 0) u.otpFactors = i % 14 === 0 ? { email, phoneNumber: phone } : { phoneNumber: phone };
    }
    users.push(u);
  }
  return { users, passwords };
}

export function writeNdjson(path: string, users: CanonicalUser[]): void {
  writeFileSync(path, users.map((u) => JSON.stringify(u)).join('\n') + '\n');
}

export function writeCredentials(path: string, passwords: Map<string, string>, limit = Infinity): void {
  writeFileSync(
    path,
    [...passwords]
      .slice(0, limit)
      .map(([e, pw]) => `${e},${pw}`)
      .join('\n') + '\n',
  );
}
