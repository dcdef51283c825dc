// Large generated exports of the vendor formats (Firebase CSV, Clerk, Cognito list-users) for the bounded-memory tests
// and benchmarks: one hash (or none) reused, lines built as strings and written in batches.
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { BatchWriter, scryptPool } from './bulk.js';
import { fixtureScryptConfig, hashConfigBlock } from './firebase.js';
import { firebaseCsvLine } from './firebase-csv.js';
import { CLERK_HEADER, clerkCsvLine } from './clerk.js';
import { federatedUser } from './cognito.js';
import { bcryptHash } from './hashes.js';
import { encodeSecret } from './totp.js';
import { createRng } from '../../src/shared/rng.js';

/** Write `count` lines (plus an optional first line) made by `line(i)`. */
export async function writeLines(path: string, count: number, line: (i: number) => string, first?: string): Promise<void> {
  const out = new BatchWriter(createWriteStream(path));
  if (first !== undefined) await out.write(first + '\n');
  for (let i = 0; i < count; i++) await out.write(line(i) + '\n');
  await out.close();
}

/** A Firebase CSV export: every other user with a scrypt password, a third Google, every tenth a phone. */
export async function writeFirebaseCsvExport(path: string, count: number): Promise<{ hashConfigPath: string }> {
  const rng = createRng(13);
  const scrypt = fixtureScryptConfig(rng);
  const [pool] = await scryptPool(rng, scrypt, 1);
  await writeLines(path, count, (i) => {
    const email = `user${i}@example.com`;
    return firebaseCsvLine({
      localId: `fbc${i}`,
      email,
      emailVerified: true,
      ...(i % 2 === 0 ? { passwordHash: pool!.passwordHash, salt: pool!.salt } : {}),
      displayName: `User ${i}`,
      providerUserInfo: i % 2 === 1 ? [{ providerId: 'google.com', rawId: `1080${i}`, email }] : [],
      createdAt: String(1600000000000 + i * 1000),
      ...(i % 10 === 0 ? { phoneNumber: `+1555${String(i).padStart(8, '0')}` } : {}),
      customAttributes: `{"n":${i}}`,
    });
  });
  const hashConfigPath = `${path}.hash-config.txt`;
  await writeFile(hashConfigPath, hashConfigBlock(scrypt));
  return { hashConfigPath };
}

/** A Clerk export: bcrypt digests (one hash reused), a TOTP secret on every fifth user, names and metadata. */
export async function writeClerkExport(path: string, count: number): Promise<void> {
  const rng = createRng(14);
  const digest = bcryptHash('bench-clerk', rng, 4);
  const secret = encodeSecret(rng.bytes(20), 'base32');
  await writeLines(
    path,
    count,
    (i) => {
      const email = `user${i}@example.com`;
      return clerkCsvLine({
        id: `user_${i.toString(36)}`,
        first_name: `First${i}`,
        last_name: `Last${i}`,
        primary_email_address: email,
        verified_email_addresses: email,
        password_digest: digest,
        password_hasher: 'bcrypt',
        ...(i % 5 === 0 ? { totp_secret: secret } : {}),
        public_metadata: `{"n":${i},"plan":"free"}`,
        created_at: String(1700000000000 + i),
      });
    },
    CLERK_HEADER.join(','),
  );
}

/** A list-users output: `{"Users": [...]}` of Google users (every third a native user), one per line. */
export async function writeCognitoExport(path: string, count: number): Promise<void> {
  const out = new BatchWriter(createWriteStream(path));
  await out.write('{\n    "Users": [\n');
  for (let i = 0; i < count; i++) {
    const sub = `00000000-0000-4000-a000-${i.toString(16).padStart(12, '0')}`;
    const email = `user${i}@example.com`;
    const created = `2024-01-01T00:00:${String(i % 60).padStart(2, '0')}+00:00`;
    const user =
      i % 3 === 2
        ? {
            Username: `u${i}`,
            Attributes: [
              { Name: 'sub', Value: sub },
              { Name: 'email', Value: email },
              { Name: 'email_verified', Value: 'true' },
              { Name: 'phone_number', Value: `+1555${String(i).padStart(8, '0')}` },
              { Name: 'phone_number_verified', Value: 'true' },
            ],
            UserCreateDate: created,
            Enabled: true,
            UserStatus: 'CONFIRMED',
          }
        : federatedUser(sub, 'Google', `1080${i}`, email, created, { email_verified: 'true', name: `User ${i}`, 'custom:n': String(i) });
    await out.write(JSON.stringify(user) + (i + 1 < count ? ',\n' : '\n'));
  }
  await out.write('    ]\n}\n');
  await out.close();
}
