// Generated Supabase exports: auth.users, auth.identities and auth.mfa_factors rows with known passwords
// (bcrypt, as GoTrue stores them) and TOTP secrets, written as Postgres `\copy ... csv header` files or as the
// JSON lines of `psql -At -c "select row_to_json(t) ..."`.
import { bcryptHash, firebaseScryptUser, type FirebaseScryptUser, type ScryptConfig } from './hashes.js';
import type { KnownCredential } from './canonical.js';
import type { Rng } from '../../src/shared/rng.js';
import { generateSecret } from './totp.js';

export type Row = Record<string, unknown>;

export interface SupabaseFixture {
  users: Row[];
  identities: Row[];
  factors: Row[];
  credentials: KnownCredential[];
}

/** The columns of the documented `\copy` commands (docs/formats.md, Supabase), in order. */
export const USER_COLUMNS = [
  'id',
  'email',
  'encrypted_password',
  'email_confirmed_at',
  'phone',
  'phone_confirmed_at',
  'raw_app_meta_data',
  'raw_user_meta_data',
  'created_at',
  'last_sign_in_at',
  'banned_until',
  'is_anonymous',
];
export const IDENTITY_COLUMNS = ['id', 'provider_id', 'user_id', 'identity_data', 'provider', 'email', 'created_at'];
export const FACTOR_COLUMNS = ['id', 'user_id', 'friendly_name', 'factor_type', 'status', 'secret', 'phone', 'created_at'];

function uuid(rng: Rng): string {
  const h = rng.bytes(16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Postgres text output of a timestamptz: `2024-02-01 09:30:00.123456+00`. */
const ts = (day: number, hour = 9): string => `2024-02-${String(day).padStart(2, '0')} ${String(hour).padStart(2, '0')}:30:00.123456+00`;

/** GoTrue's form of a Firebase scrypt hash (supabase/auth internal/crypto/password.go, fbscryptHashRegexp). */
export function fbscryptDigest(user: FirebaseScryptUser, c: ScryptConfig): string {
  return `$fbscrypt$v=1,n=${c.memCost},r=${c.rounds},p=1,ss=${c.saltSeparator},sk=${c.signerKey}$${user.salt}$${user.passwordHash}`;
}

export async function supabaseFixtureUsers(rng: Rng, scrypt: ScryptConfig): Promise<SupabaseFixture> {
  const users: Row[] = [];
  const identities: Row[] = [];
  const factors: Row[] = [];
  const credentials: KnownCredential[] = [];
  const base = (id: string, day: number): Row => ({ id, created_at: ts(day), last_sign_in_at: ts(day + 1), is_anonymous: 'f' });
  const emailIdentity = (userId: string, email: string, day: number): void =>
    void identities.push({
      id: uuid(rng),
      provider_id: userId,
      user_id: userId,
      identity_data: { sub: userId, email, email_verified: false, phone_verified: false },
      provider: 'email',
      email,
      created_at: ts(day),
    });

  const adaId = uuid(rng);
  const adaPw = `ada-${rng.word(8)}`;
  const adaTotp = { ...generateSecret(rng, 'base32'), deviceName: 'Ada phone' };
  users.push({
    ...base(adaId, 1),
    email: 'ada.sb@example.com',
    encrypted_password: bcryptHash(adaPw, rng, 10, '2a'),
    email_confirmed_at: ts(1, 10),
    raw_app_meta_data: { provider: 'email', providers: ['email'], roles: ['admin', 'editor'] },
    raw_user_meta_data: { full_name: 'Ada Lovelace', plan: 'pro' },
  });
  emailIdentity(adaId, 'ada.sb@example.com', 1);
  factors.push({
    id: uuid(rng),
    user_id: adaId,
    friendly_name: adaTotp.deviceName,
    factor_type: 'totp',
    status: 'verified',
    secret: adaTotp.secret,
    created_at: ts(2),
  });
  // An enrolment never finished: reported as dropped, not carried.
  factors.push({
    id: uuid(rng),
    user_id: adaId,
    friendly_name: 'Old tablet',
    factor_type: 'totp',
    status: 'unverified',
    secret: generateSecret(rng).secret,
    created_at: ts(3),
  });
  credentials.push({
    id: adaId,
    email: 'ada.sb@example.com',
    password: adaPw,
    algorithm: 'bcrypt',
    totp: [adaTotp],
    notes: 'email confirmed; roles admin, editor from raw_app_meta_data; a verified and an unverified TOTP factor',
  });

  const boId = uuid(rng);
  const boPw = `bo-${rng.word(8)}`;
  users.push({
    ...base(boId, 4),
    email: 'bo.sb@example.com',
    encrypted_password: bcryptHash(boPw, rng, 10, '2a'),
    raw_app_meta_data: { provider: 'email', providers: ['email'] },
    raw_user_meta_data: {},
    banned_until: '2024-03-01 00:00:00+00',
  });
  emailIdentity(boId, 'bo.sb@example.com', 4);
  factors.push({
    id: uuid(rng),
    user_id: boId,
    friendly_name: 'SMS',
    factor_type: 'phone',
    status: 'verified',
    phone: '14155550142',
    created_at: ts(5),
  });
  credentials.push({
    id: boId,
    email: 'bo.sb@example.com',
    password: boPw,
    algorithm: 'bcrypt',
    totp: [],
    notes: 'email not confirmed; a ban that ended (not disabled); SMS factor +14155550142',
  });

  const cyId = uuid(rng);
  users.push({
    ...base(cyId, 6),
    email: 'cy.sb@example.com',
    encrypted_password: '',
    email_confirmed_at: ts(6),
    raw_app_meta_data: { provider: 'google', providers: ['google'] },
    raw_user_meta_data: { name: 'Cy Young', avatar_url: 'https://example.com/cy.png', email_verified: true },
  });
  identities.push({
    id: uuid(rng),
    provider_id: '110000000000000000601',
    user_id: cyId,
    identity_data: { sub: '110000000000000000601', email: 'cy.sb@example.com', email_verified: true, name: 'Cy Young' },
    provider: 'google',
    email: 'cy.sb@example.com',
    created_at: ts(6),
  });
  credentials.push({ id: cyId, email: 'cy.sb@example.com', totp: [], notes: 'Google sign-in only (auth.identities)' });

  const diId = uuid(rng);
  users.push({
    ...base(diId, 7),
    encrypted_password: '',
    phone: '14155550170',
    phone_confirmed_at: ts(7),
    raw_app_meta_data: { provider: 'phone', providers: ['phone'] },
  });
  identities.push({
    id: uuid(rng),
    provider_id: diId,
    user_id: diId,
    identity_data: { sub: diId, phone: '14155550170', phone_verified: true },
    provider: 'phone',
    created_at: ts(7),
  });
  credentials.push({ id: diId, totp: [], notes: 'phone sign-in +14155550170 (stored without the +)' });

  const edId = uuid(rng);
  const edPw = `ed-${rng.word(8)}`;
  users.push({
    ...base(edId, 8),
    email: 'ed.sb@example.com',
    encrypted_password: bcryptHash(edPw, rng, 10, '2a'),
    email_confirmed_at: ts(8),
    raw_app_meta_data: { provider: 'email', providers: ['email', 'github'] },
    raw_user_meta_data: { user_name: 'ed-gh' },
    banned_until: '2999-01-01 00:00:00+00',
  });
  emailIdentity(edId, 'ed.sb@example.com', 8);
  identities.push({
    id: uuid(rng),
    provider_id: '8800801',
    user_id: edId,
    identity_data: { sub: '8800801', email: 'ed.sb@example.com', email_verified: true, user_name: 'ed-gh' },
    provider: 'github',
    email: 'ed.sb@example.com',
    created_at: ts(9),
  });
  credentials.push({
    id: edId,
    email: 'ed.sb@example.com',
    password: edPw,
    algorithm: 'bcrypt',
    totp: [],
    notes: 'password and a linked GitHub login; banned until 2999 (disabled)',
  });

  // A user imported into Supabase from Firebase: GoTrue keeps the Firebase scrypt hash as `$fbscrypt$`, signer key
  // and all; the reader converts it to the core's `$f_scrypt$` string. With a TOTP factor.
  const fayId = uuid(rng);
  const fayPw = `fay-${rng.word(8)}`;
  const fayTotp = { ...generateSecret(rng, 'base32'), deviceName: 'Fay authenticator' };
  users.push({
    ...base(fayId, 10),
    email: 'fay.sb@example.com',
    encrypted_password: fbscryptDigest(await firebaseScryptUser(fayPw, rng, scrypt), scrypt),
    email_confirmed_at: ts(10, 10),
    raw_app_meta_data: { provider: 'email', providers: ['email'] },
    raw_user_meta_data: { imported_from: 'firebase' },
  });
  emailIdentity(fayId, 'fay.sb@example.com', 10);
  factors.push({
    id: uuid(rng),
    user_id: fayId,
    friendly_name: fayTotp.deviceName,
    factor_type: 'totp',
    status: 'verified',
    secret: fayTotp.secret,
    created_at: ts(11),
  });
  credentials.push({
    id: fayId,
    email: 'fay.sb@example.com',
    password: fayPw,
    algorithm: 'external_scrypt',
    totp: [fayTotp],
    notes: "a Firebase scrypt hash in GoTrue's $fbscrypt$ form (converted; needs the Firebase hash config's signer key); a TOTP factor",
  });
  return { users, identities, factors, credentials };
}

/** A value as Postgres writes it in CSV: NULL empty, JSON as its text, quoted when needed. */
function csvValue(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text === '' || /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function tableCsv(columns: readonly string[], rows: Row[]): string {
  return [columns.join(','), ...rows.map((r) => columns.map((c) => csvValue(r[c])).join(','))].join('\n') + '\n';
}

/** `row_to_json` output: every column (NULL as null), timestamps in ISO form, booleans as JSON. */
export function tableJsonLines(columns: readonly string[], rows: Row[]): string {
  const convert = (v: unknown): unknown => {
    if (v === 't' || v === 'f') return v === 't';
    if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/.test(v)) return v.replace(' ', 'T').replace(/\+00$/, '+00:00');
    return v ?? null;
  };
  return rows.map((r) => JSON.stringify(Object.fromEntries(columns.map((c) => [c, convert(r[c])])))).join('\n') + '\n';
}

/** Broken Supabase files (fixtures/broken/): each row shows one way a copy goes wrong. */
export function supabaseBroken(rng: Rng): Array<{ name: string; content: string; shows: string }> {
  const id = (n: number): string => `00000000-0000-4000-a000-00000000000${n}`;
  const users = tableCsv(USER_COLUMNS, [
    {
      id: id(1),
      email: 'meta.sb@example.com',
      encrypted_password: bcryptHash('irrelevant-pw', rng, 4, '2a'),
      raw_user_meta_data: '{"name": ',
      created_at: ts(1),
    },
    { email: 'no-id.sb@example.com', created_at: ts(2) },
    {
      id: id(3),
      email: 'roles.sb@example.com',
      encrypted_password: bcryptHash('irrelevant-pw', rng, 4, '2a'),
      raw_app_meta_data: { roles: 'admin' },
      created_at: ts(3),
    },
  ]);
  const factors = tableCsv(FACTOR_COLUMNS, [
    {
      id: id(4),
      user_id: id(3),
      factor_type: 'totp',
      status: 'verified',
      secret: JSON.stringify({
        key_id: 'k1',
        alg: 'aes-gcm-hkdf',
        nonce: rng.bytes(12).toString('base64'),
        data: rng.bytes(40).toString('base64'),
      }),
      created_at: ts(4),
    },
    { id: id(5), user_id: id(9), factor_type: 'totp', status: 'verified', secret: generateSecret(rng).secret, created_at: ts(5) },
  ]);
  return [
    {
      name: 'supabase-users.csv',
      content: users + `${id(6)},short.sb@example.com\n`,
      shows:
        'Supabase auth.users: raw_user_meta_data that is not JSON, a row without id, roles that are not a list, a row with missing columns',
    },
    {
      name: 'supabase-mfa_factors.csv',
      content: factors,
      shows:
        'Supabase auth.mfa_factors (with supabase-users.csv): a secret encrypted at rest, and a factor of a user not in the users file',
    },
  ];
}
