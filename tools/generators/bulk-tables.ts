// Large generated Supabase and Keycloak exports (streaming tests, benchmarks): one bcrypt hash and one TOTP
// secret reused, rows built as strings and written in batches, so a few hundred thousand users take seconds.
import { createWriteStream } from 'node:fs';
import { BatchWriter } from './bulk.js';
import { bcryptHash } from './hashes.js';
import { createRng } from '../../src/shared/rng.js';
import { generateSecret } from './totp.js';
import { FACTOR_COLUMNS, tableCsv, USER_COLUMNS } from './supabase.js';
import { otpCredential, pbkdf2Credential } from './keycloak.js';

const uuid = (i: number, kind: number): string =>
  `${kind.toString(16).padStart(8, '0')}-0000-4000-a000-${i.toString(16).padStart(12, '0')}`;

/** auth.users as CSV (and, when `factorsPath` is given, a verified TOTP factor for every tenth user). */
export async function writeSupabaseExport(usersPath: string, count: number, factorsPath?: string): Promise<void> {
  const rng = createRng(31);
  const hash = bcryptHash('bulk-password', rng, 4, '2a');
  const secret = generateSecret(rng).secret;
  const users = new BatchWriter(createWriteStream(usersPath));
  const factors = factorsPath ? new BatchWriter(createWriteStream(factorsPath)) : undefined;
  await users.write(USER_COLUMNS.join(',') + '\n');
  await factors?.write(FACTOR_COLUMNS.join(',') + '\n');
  for (let i = 0; i < count; i++) {
    const id = uuid(i, 1);
    const row = {
      id,
      email: `user${i}@example.com`,
      encrypted_password: hash,
      email_confirmed_at: '2024-02-01 10:30:00.123456+00',
      raw_app_meta_data: { provider: 'email', providers: ['email'] },
      raw_user_meta_data: { full_name: `User ${i}` },
      created_at: '2024-02-01 09:30:00.123456+00',
      is_anonymous: 'f',
    };
    await users.write(tableCsv(USER_COLUMNS, [row]).slice(USER_COLUMNS.join(',').length + 1));
    if (factors && i % 10 === 0) {
      const f = { id: uuid(i, 2), user_id: id, factor_type: 'totp', status: 'verified', secret, created_at: '2024-02-02 09:30:00+00' };
      await factors.write(tableCsv(FACTOR_COLUMNS, [f]).slice(FACTOR_COLUMNS.join(',').length + 1));
    }
  }
  await users.close();
  await factors?.close();
}

/** A realm export with `count` users, each with a pbkdf2-sha256 password and every tenth an otp credential. */
export async function writeKeycloakRealm(path: string, count: number): Promise<void> {
  const rng = createRng(32);
  const password = pbkdf2Credential('bulk-password', rng, 'pbkdf2-sha256', 1000, 1);
  const otp = otpCredential(rng.word(20), rng, 'phone', 1);
  const out = new BatchWriter(createWriteStream(path));
  await out.write('{\n  "id" : "bulk",\n  "realm" : "bulk",\n  "enabled" : true,\n  "users" : [ ');
  for (let i = 0; i < count; i++) {
    const user = {
      id: uuid(i, 3),
      username: `user${i}`,
      email: `user${i}@example.com`,
      emailVerified: true,
      enabled: true,
      createdTimestamp: 1700000000000 + i,
      federatedIdentities: [{ identityProvider: 'google', userId: String(100000 + i), userName: `user${i}@example.com` }],
      credentials: i % 10 === 0 ? [password, otp] : [password],
      realmRoles: ['default-roles-bulk', i % 2 === 0 ? 'member' : 'guest'],
    };
    await out.write((i === 0 ? '' : ', ') + JSON.stringify(user, null, 2));
  }
  await out.write(' ]\n}\n');
  await out.close();
}
