// Generated Clerk dashboard user exports (CSV with Clerk's header): bcrypt and argon2id digests with known
// passwords, TOTP secrets, verified and unverified emails and phones, names and metadata; a second file with
// hashers the core cannot take (legacyPassword) and a broken file beside them.
import { createHash } from 'node:crypto';
import { CLERK_COLUMNS } from '../../src/sources/clerk.js';
import type { BrokenFile } from './broken.js';
import type { KnownCredential } from './canonical.js';
import type { CsvFixtures } from './firebase-csv.js';
import { argon2Hash, bcryptHash, firebaseScryptUser, type FirebaseScryptUser, type ScryptConfig } from './hashes.js';
import type { Rng } from '../../src/shared/rng.js';
import { generateSecret } from './totp.js';

export const CLERK_HEADER = CLERK_COLUMNS;

export type ClerkRow = Partial<Record<(typeof CLERK_HEADER)[number], string>>;

function field(value: string | undefined): string {
  if (value === undefined) return '';
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function clerkCsvLine(row: ClerkRow, header: readonly string[] = CLERK_HEADER): string {
  return header.map((h) => field(row[h])).join(',');
}

export function clerkCsv(rows: ClerkRow[], comment?: string): string {
  return [...(comment ? [`# ${comment}`] : []), CLERK_HEADER.join(','), ...rows.map((r) => clerkCsvLine(r))].join('\n') + '\n';
}

/** Clerk's `scrypt_firebase` digest (Backend API, password_hasher): `<hash>$<salt>$<signer key>$<salt separator>$<rounds>$<memory cost>`. */
export function clerkScryptFirebaseDigest(user: FirebaseScryptUser, c: ScryptConfig): string {
  return `${user.passwordHash}$${user.salt}$${c.signerKey}$${c.saltSeparator}$${c.rounds}$${c.memCost}`;
}

export async function clerkFixtures(rng: Rng, scrypt: ScryptConfig): Promise<CsvFixtures> {
  const rows: ClerkRow[] = [];
  const credentials: KnownCredential[] = [];
  const pw = (name: string): string => `${name}-${rng.word(8)}`;
  const created = (n: number): string => new Date(Date.UTC(2024, 1, 1 + n)).toISOString();

  const ann = pw('ann');
  rows.push({
    id: 'user_2ann',
    first_name: 'Ann',
    last_name: 'Clerkson',
    primary_email_address: 'ann@clerk.example',
    verified_email_addresses: 'ann@clerk.example',
    password_digest: bcryptHash(ann, rng),
    password_hasher: 'bcrypt',
    public_metadata: '{"plan":"pro"}',
    private_metadata: '{"stripeCustomer":"cus_0001"}',
    created_at: created(0),
  });
  credentials.push({
    id: 'user_2ann',
    email: 'ann@clerk.example',
    password: ann,
    algorithm: 'bcrypt',
    totp: [],
    notes: 'bcrypt; names, public and private metadata',
  });

  const bob = pw('bob');
  const bobTotp = generateSecret(rng, 'base32');
  rows.push({
    id: 'user_2bob',
    first_name: 'Bob',
    username: 'bobby',
    primary_email_address: 'bob@clerk.example',
    verified_email_addresses: 'bob@clerk.example',
    unverified_email_addresses: 'bob.old@clerk.example',
    totp_secret: bobTotp.secret,
    password_digest: await argon2Hash(bob, rng),
    password_hasher: 'argon2id',
    backup_codes_enabled: 'true',
    backup_codes: 'k3j4h5g6,p0o9i8u7',
    created_at: created(1),
  });
  credentials.push({
    id: 'user_2bob',
    email: 'bob@clerk.example',
    password: bob,
    algorithm: 'argon2',
    totp: [bobTotp],
    notes: 'argon2id; TOTP; username; an unverified second email and backup codes (both dropped)',
  });

  rows.push({
    id: 'user_2cy',
    last_name: 'Phone',
    primary_phone_number: '+14155550301',
    verified_phone_numbers: '+14155550301',
    created_at: created(2),
  });
  credentials.push({ id: 'user_2cy', totp: [], notes: 'phone sign-in +14155550301 (verified primary phone), no email or password' });

  const dee = pw('dee');
  rows.push({
    id: 'user_2dee',
    primary_email_address: 'dee@clerk.example',
    unverified_email_addresses: 'dee@clerk.example',
    password_digest: bcryptHash(dee, rng),
    password_hasher: 'bcrypt',
    unsafe_metadata: '{"theme":"dark"}',
    unverified_phone_numbers: '+14155550302',
  });
  credentials.push({
    id: 'user_2dee',
    email: 'dee@clerk.example',
    password: dee,
    algorithm: 'bcrypt',
    totp: [],
    notes: 'bcrypt; unverified email; an unverified phone (dropped); unsafe metadata',
  });

  const eve = pw('eve');
  const eveTotp = generateSecret(rng, 'base32');
  rows.push({
    id: 'user_2eve',
    first_name: 'Eve',
    last_name: 'Two, Factor',
    primary_email_address: 'eve@clerk.example',
    verified_email_addresses: 'eve@clerk.example|eve@work.example',
    totp_secret: eveTotp.secret,
    password_digest: bcryptHash(eve, rng),
    password_hasher: 'bcrypt',
    created_at: String(Date.UTC(2024, 1, 5)),
  });
  credentials.push({
    id: 'user_2eve',
    email: 'eve@clerk.example',
    password: eve,
    algorithm: 'bcrypt',
    totp: [eveTotp],
    notes: 'bcrypt and TOTP; a second verified email (dropped); created_at in epoch ms',
  });

  // Hashers the core cannot verify: carried as legacyPassword for the sign-in migration file.
  const md5 = createHash('md5').update('legacy-md5-pw').digest('hex');
  const legacy = clerkCsv([
    {
      id: 'user_2leg',
      primary_email_address: 'leg@clerk.example',
      verified_email_addresses: 'leg@clerk.example',
      password_digest: md5,
      password_hasher: 'md5',
    },
    {
      id: 'user_2pbk',
      primary_email_address: 'pbk@clerk.example',
      verified_email_addresses: 'pbk@clerk.example',
      password_digest: 'pbkdf2_sha256$600000$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA==',
      password_hasher: 'pbkdf2_sha256_django',
    },
  ]);

  const broken: BrokenFile = {
    name: 'clerk-bad.csv',
    content: clerkCsv([
      {
        id: 'user_2ok',
        primary_email_address: 'ok@clerk.example',
        verified_email_addresses: 'ok@clerk.example',
        password_digest: bcryptHash('irrelevant-pw', rng),
        password_hasher: 'bcrypt',
      },
      { id: 'user_2nohasher', primary_email_address: 'nh@clerk.example', password_digest: bcryptHash('irrelevant-pw', rng) },
      { id: '', primary_email_address: 'noid@clerk.example' },
      {
        id: 'user_2meta',
        primary_email_address: 'meta@clerk.example',
        public_metadata: '{not json',
        primary_phone_number: '+14155550399',
        verified_phone_numbers: '+14155550399',
      },
      {
        id: 'user_2totp',
        primary_email_address: 'totp@clerk.example',
        password_digest: bcryptHash('irrelevant-pw', rng),
        password_hasher: 'bcrypt',
        totp_secret: 'NOT*BASE32',
      },
    ]),
    shows: 'a Clerk export: a digest without its hasher, a row without an id, metadata that is not JSON, a TOTP secret that is not base32',
  };

  // A user imported into Clerk from Firebase (its digest kept as scrypt_firebase), with TOTP; made after the broken
  // file so the other rows keep their bytes.
  const fay = pw('fay');
  const fayTotp = generateSecret(rng, 'base32');
  rows.push({
    id: 'user_2fay',
    first_name: 'Fay',
    primary_email_address: 'fay@clerk.example',
    verified_email_addresses: 'fay@clerk.example',
    totp_secret: fayTotp.secret,
    password_digest: clerkScryptFirebaseDigest(await firebaseScryptUser(fay, rng, scrypt), scrypt),
    password_hasher: 'scrypt_firebase',
    created_at: created(6),
  });
  credentials.push({
    id: 'user_2fay',
    email: 'fay@clerk.example',
    password: fay,
    algorithm: 'external_scrypt',
    totp: [fayTotp],
    notes: "a Firebase scrypt digest (scrypt_firebase, converted; needs the Firebase hash config's signer key) and TOTP",
  });

  return {
    files: [
      { path: 'clerk/users.csv', content: clerkCsv(rows, 'Clerk dashboard user export (generated; passwords in fixtures/README.md)') },
      { path: 'clerk/legacy-hashes.csv', content: legacy },
    ],
    sets: [
      {
        name: 'clerk',
        files: ['clerk/users.csv'],
        hashConfig: 'firebase/hash-config.txt',
        needsSignerKey: true,
        valid: true,
        description:
          'Clerk dashboard user export (CSV): bcrypt, argon2id and Firebase scrypt (`scrypt_firebase`: give the Firebase hash config, or its signer key) passwords, TOTP, a phone-only user, names and metadata',
        credentials,
      },
      {
        name: 'clerk-legacy',
        files: ['clerk/legacy-hashes.csv'],
        valid: false,
        description:
          'Clerk users whose hasher the core cannot verify (md5, Django pbkdf2): read into legacyPassword; they need `--unusable-hashes without-password` and the sign-in migration file (the md5 password is `legacy-md5-pw`)',
        credentials: [
          { id: 'user_2leg', email: 'leg@clerk.example', algorithm: 'md5 (legacy)', totp: [], notes: 'md5 digest: legacyPassword' },
          {
            id: 'user_2pbk',
            email: 'pbk@clerk.example',
            algorithm: 'pbkdf2_sha256_django (legacy)',
            totp: [],
            notes: 'Django pbkdf2 digest: legacyPassword',
          },
        ],
      },
    ],
    broken: [broken],
  };
}
