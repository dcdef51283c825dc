// Write fixtures/: small, readable examples of every format made by the generators, the broken examples,
// sets.json (which files go together) and README.md (every password, secret and the hash config).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { auth0FixtureUsers, auth0PasswordArray, ndjson } from './auth0.js';
import { brokenFixtures } from './broken.js';
import { canonicalFixtureUsers, type KnownCredential } from './canonical.js';
import {
  firebaseExportJson,
  firebaseFixtureUsers,
  fixtureScryptConfig,
  hashConfigBlock,
  hashConfigJson,
  toWebSafeExport,
} from './firebase.js';
import { firebaseCsvFixtures } from './firebase-csv.js';
import { clerkFixtures } from './clerk.js';
import { cognitoFixtures } from './cognito.js';
import { firebaseScryptUser, type ScryptConfig } from './hashes.js';
import { createRng } from '../../src/shared/rng.js';
import { generateSecret, otpauthUri, totpCsv } from './totp.js';
import { renderReadme } from './readme.js';
import { sourceFixtures } from './source-fixtures.js';

export interface FixtureSet {
  name: string;
  /** Paths relative to fixtures/. */
  files: string[];
  /** Relative path of the hash config, for Firebase sets. */
  hashConfig?: string;
  /** Whether the external scrypt signer key is needed to verify passwords. */
  needsSignerKey?: boolean;
  /** Every record valid (warnings allowed). */
  valid: boolean;
  /** Warnings the set is expected to produce. */
  warnings?: boolean;
  description: string;
  credentials: KnownCredential[];
}

export async function writeFixtures(dir: string): Promise<FixtureSet[]> {
  const scrypt = fixtureScryptConfig(createRng(1));
  const canonical = await canonicalFixtureUsers(createRng(2), scrypt);
  const firebase = await firebaseFixtureUsers(createRng(3), scrypt);
  const auth0 = auth0FixtureUsers(createRng(4));
  const totpRng = createRng(5);

  for (const sub of ['canonical', 'firebase', 'auth0', 'totp', 'broken']) await rm(join(dir, sub), { recursive: true, force: true });
  for (const sub of ['canonical', 'firebase', 'auth0', 'totp', 'broken']) await mkdir(join(dir, sub), { recursive: true });
  const put = (path: string, content: string | Buffer): Promise<void> => writeFile(join(dir, path), content);

  const canonicalJson = JSON.stringify(canonical.users, null, 2) + '\n';
  await put('canonical/users.json', canonicalJson);
  await put('canonical/users.ndjson', ndjson(canonical.users));
  await put(
    'canonical/users-bom-crlf.json',
    '\uFEFF' + JSON.stringify({ users: canonical.users }, null, 2).replace(/\n/g, '\r\n') + '\r\n',
  );

  const firebaseJson = firebaseExportJson(firebase.users);
  await put('firebase/export.json', firebaseJson);
  await put('firebase/export-websafe.json', firebaseExportJson(toWebSafeExport(firebase.users)));
  await put('firebase/hash-config.txt', hashConfigBlock(scrypt));
  await put('firebase/hash-config.json', hashConfigJson(scrypt));
  const warnRng = createRng(6);
  const warnPw = `kim-${warnRng.word(8)}`;
  const kim = await firebaseScryptUser(warnPw, warnRng, scrypt);
  await put(
    'firebase/with-warnings.json',
    firebaseExportJson([
      {
        localId: 'fbw-kim',
        email: 'kim@example.com',
        emailVerified: true,
        passwordHash: kim.passwordHash,
        salt: kim.salt,
        createdAt: '1656633600000',
        disabled: true,
        mfaInfo: [{ mfaEnrollmentId: 'enr-kim-1', displayName: 'Authenticator', totpInfo: {}, enrolledAt: '2023-03-01T10:00:00Z' }],
      },
    ]),
  );

  await put('auth0/passwords.ndjson', ndjson(auth0.passwords));
  await put('auth0/passwords-array.json', auth0PasswordArray(auth0.passwords));
  await put('auth0/users.ndjson.gz', gzipSync(Buffer.from(ndjson(auth0.users))));

  // TOTP lists for the Firebase users, in each encoding and both list forms.
  const firebaseCreds = new Map(firebase.credentials.map((c) => [c.id, c]));
  const ann = { ...generateSecret(totpRng, 'base32'), deviceName: 'Authenticator' };
  const ben = generateSecret(totpRng, 'hex');
  const eli = { ...generateSecret(totpRng, 'base64'), deviceName: 'Tablet, old' };
  const fox = { ...generateSecret(totpRng, 'base32'), deviceName: 'Example' };
  firebaseCreds.get('fb-ann')!.totp.push(ann);
  firebaseCreds.get('fb-ben')!.totp.push(ben);
  firebaseCreds.get('fb-eli')!.totp.push(eli);
  firebaseCreds.get('fb-fox')!.totp.push(fox);
  await put(
    'totp/firebase-secrets.csv',
    totpCsv(
      [
        { email: 'ann@example.com', secret: ann.secret, encoding: 'base32', period: 30, skew: 1, deviceName: ann.deviceName },
        { email: 'Ben@Example.com', secret: ben.secret, encoding: 'hex' },
        { email: 'eli@example.com', secret: eli.secret, encoding: 'base64', period: 30, skew: 1, deviceName: eli.deviceName },
      ],
      '\r\n',
    ),
  );
  await put(
    'totp/firebase-otpauth.txt',
    otpauthUri({ account: 'fb-fox', secretBase32: fox.base32, issuer: 'Example', algorithm: 'SHA1', digits: 6, period: 30 }) + '\n',
  );

  const broken = await brokenFixtures(createRng(7), scrypt, canonicalJson, firebaseJson);
  // The other sources' fixtures: files, sets and broken files from their own generators.
  const more = [
    firebaseCsvFixtures(firebase.users, firebase.credentials),
    await clerkFixtures(createRng(21), scrypt),
    cognitoFixtures(createRng(22)),
  ];
  const ownDirs = new Set(more.flatMap((m) => m.files.map((f) => f.path.split('/')[0]!)));
  for (const sub of ownDirs)
    if (!['canonical', 'firebase', 'auth0', 'totp', 'broken'].includes(sub)) await rm(join(dir, sub), { recursive: true, force: true });
  for (const m of more)
    for (const f of m.files) {
      await mkdir(join(dir, dirname(f.path)), { recursive: true });
      await put(f.path, f.content);
    }
  broken.push(...more.flatMap((m) => m.broken));
  const tables = await sourceFixtures(dir, scrypt);
  broken.push(...tables.broken);
  for (const f of broken) await put(join('broken', f.name), f.content);

  const firebaseWithTotp = [...firebaseCreds.values()];
  const sets: FixtureSet[] = [
    {
      name: 'canonical',
      files: ['canonical/users.json'],
      needsSignerKey: true,
      valid: true,
      description: 'canonical JSON array: every first factor, hash format, TOTP encoding and factor',
      credentials: canonical.credentials,
    },
    {
      name: 'canonical-ndjson',
      files: ['canonical/users.ndjson'],
      needsSignerKey: true,
      valid: true,
      description: 'the same users as NDJSON',
      credentials: canonical.credentials,
    },
    {
      name: 'canonical-bom-crlf',
      files: ['canonical/users-bom-crlf.json'],
      needsSignerKey: true,
      valid: true,
      description: 'the same users as `{"users": [...]}` with a UTF-8 BOM and CRLF line ends',
      credentials: canonical.credentials,
    },
    {
      name: 'firebase',
      files: ['firebase/export.json'],
      hashConfig: 'firebase/hash-config.txt',
      needsSignerKey: true,
      valid: true,
      description: 'Firebase auth:export: scrypt passwords, Google, GitHub, Facebook, phone sign-in, an SMS factor',
      credentials: firebase.credentials.map((c) => ({ ...c, totp: [] })),
    },
    {
      name: 'firebase-websafe',
      files: ['firebase/export-websafe.json'],
      hashConfig: 'firebase/hash-config.json',
      needsSignerKey: true,
      valid: true,
      description: 'the same users with web-safe unpadded base64 (Admin SDK form), hash config as JSON',
      credentials: firebase.credentials.map((c) => ({ ...c, totp: [] })),
    },
    {
      name: 'firebase-totp',
      files: ['firebase/export.json', 'totp/firebase-secrets.csv', 'totp/firebase-otpauth.txt'],
      hashConfig: 'firebase/hash-config.txt',
      needsSignerKey: true,
      valid: true,
      description: 'the Firebase users joined with TOTP secrets from a CSV (by email; CRLF) and an otpauth list (by id)',
      credentials: firebaseWithTotp,
    },
    {
      name: 'firebase-warnings',
      files: ['firebase/with-warnings.json'],
      hashConfig: 'firebase/hash-config.txt',
      needsSignerKey: true,
      valid: true,
      warnings: true,
      description: 'a disabled user with a TOTP factor exported without its secret (warnings only)',
      credentials: [
        {
          id: 'fbw-kim',
          email: 'kim@example.com',
          password: warnPw,
          algorithm: 'external_scrypt',
          totp: [],
          notes: 'disabled; totpInfo without a secret',
        },
      ],
    },
    {
      name: 'auth0',
      files: ['auth0/passwords.ndjson', 'auth0/users.ndjson.gz'],
      valid: true,
      description: 'Auth0 password-hash export (NDJSON) joined with the gzip user export',
      credentials: auth0.credentials,
    },
    {
      name: 'auth0-array',
      files: ['auth0/passwords-array.json'],
      valid: true,
      description: 'the password-hash export as one JSON array with `_ID`',
      credentials: auth0.credentials.filter((c) => c.password !== undefined),
    },
    ...more.flatMap((m) => m.sets),
    ...tables.sets,
  ];
  await put(
    'sets.json',
    JSON.stringify(
      sets.map(({ credentials: _c, ...rest }) => rest),
      null,
      2,
    ) + '\n',
  );
  // A sample for `verify --credentials` (README): the canonical users that have a password, as `email,password`.
  const known = sets[0]!.credentials.filter((c) => c.email && c.password).map((c) => `${c.email},${c.password}`);
  await put(
    'canonical/known.csv',
    ['# email,password of users who should sign in after the migration (verify --credentials)', ...known].join('\n') + '\n',
  );
  await put('README.md', renderReadme(sets, broken, scrypt));
  return sets;
}

export type { ScryptConfig };
