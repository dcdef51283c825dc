// One row of Supabase's `auth.users` (CSV or JSON lines) to a canonical record: bcrypt `encrypted_password`,
// confirmed email and phone, `raw_user_meta_data` / `raw_app_meta_data` to metadata (app roles to roles),
// `created_at`, `banned_until` / `deleted_at`. Columns the core cannot hold are noted in the FieldReport.
import type { CanonicalUser, RecordOrigin } from '../records/types.js';
import type { SourceItem } from './index.js';
import type { FieldReport } from './field-report.js';
import { addProblem, isObject, type FieldContext } from './fields.js';
import { fromFbscrypt, type SignerKeyCheck } from './firebase-digests.js';
import { jsonColumn, pgTimestamp } from './table-rows.js';

const FORMAT = 'supabase';

/** auth.users columns that are read, and where they go (for the FieldReport). */
const MAPPED: Record<string, string> = {
  id: 'id (run --keep-source-ids keeps it as the core user id)',
  email: 'email',
  email_confirmed_at: 'emailVerified',
  encrypted_password: 'password.hash (bcrypt, argon2, $fbscrypt$ as Firebase scrypt; another hash to legacyPassword)',
  phone: 'phoneNumber',
  phone_confirmed_at: 'phoneNumber (a phone never confirmed is not carried)',
  raw_user_meta_data: 'metadata.user_metadata',
  raw_app_meta_data: 'metadata.app_metadata (its roles list also to roles)',
  created_at: 'timeJoined',
  banned_until: 'disabled',
  deleted_at: 'disabled',
  confirmed_at: 'emailVerified (Postgres derives it from email_confirmed_at and phone_confirmed_at)',
  is_sso_user: 'thirdParty (the SSO identity comes from auth.identities)',
};

const TOKEN = 'a pending one-time token; it is not valid in the new system (the user asks for a new link or code)';
const SENT = 'when a pending email or SMS was sent; the core keeps no such time';
const PENDING = 'a change not confirmed yet; the confirmed value is carried instead';
/** auth.users columns the core cannot hold, and why. */
const DROPPED: Record<string, string> = {
  instance_id: 'Supabase-internal (always the same instance); the core has no equivalent',
  aud: "the audience of Supabase's JWTs; the core issues its own sessions",
  role: "the Postgres role of Supabase's JWTs (authenticated), not an app role; app roles come from raw_app_meta_data.roles",
  confirmation_token: TOKEN,
  recovery_token: TOKEN,
  email_change_token_new: TOKEN,
  email_change_token_current: TOKEN,
  phone_change_token: TOKEN,
  reauthentication_token: TOKEN,
  confirmation_sent_at: SENT,
  recovery_sent_at: SENT,
  email_change_sent_at: SENT,
  phone_change_sent_at: SENT,
  reauthentication_sent_at: SENT,
  invited_at: SENT,
  email_change: PENDING,
  phone_change: PENDING,
  email_change_confirm_status: PENDING,
  last_sign_in_at: 'the core keeps no last sign-in time',
  updated_at: 'the core keeps no update time',
  is_super_admin: 'unused by Supabase Auth; not an app role',
};

const isTrue = (v: unknown): boolean => v === true || v === 't' || v === 'true';

/** Supabase keeps phones without the `+` (`14155550100`); the canonical form is E.164. */
export function supabasePhone(value: string): string {
  const trimmed = value.trim();
  return /^\d{6,15}$/.test(trimmed) ? `+${trimmed}` : trimmed;
}

export function supabaseUserItem(
  values: Record<string, unknown>,
  origin: RecordOrigin,
  fields?: FieldReport,
  now = Date.now(),
  keys?: SignerKeyCheck,
): SourceItem {
  const ctx: FieldContext = { origin, problems: [] };
  const id = typeof values['id'] === 'string' ? values['id'].trim() : '';
  if (id === '') {
    addProblem(ctx, 'id', 'the row has no id; export auth.users with its id column', 'source.required');
    return { kind: 'problem', problem: ctx.problems[0]! };
  }
  ctx.sourceId = id;
  // The app's tables and row level security point at auth.users.id: `run --keep-source-ids` keeps it (docs/formats.md).
  const record: CanonicalUser = { id };
  for (const [column, value] of Object.entries(values)) {
    if (value === null || value === undefined || value === '') continue;
    if (MAPPED[column] !== undefined) fields?.mapped(FORMAT, `users.${column}`, MAPPED[column]);
    else if (DROPPED[column] !== undefined) fields?.dropped(FORMAT, `users.${column}`, DROPPED[column]);
    else if (column !== 'is_anonymous')
      fields?.dropped(FORMAT, `users.${column}`, 'not an auth.users column this reader knows; it is not carried');
  }
  const text = (key: string): string | undefined =>
    typeof values[key] === 'string' && values[key] !== '' ? (values[key] as string) : undefined;

  const email = text('email');
  if (email !== undefined) {
    record.email = email;
    record.emailVerified = text('email_confirmed_at') !== undefined;
  }
  const hash = text('encrypted_password');
  if (hash !== undefined) readHash(ctx, hash, record, keys);
  const phone = text('phone');
  if (phone !== undefined) {
    if (text('phone_confirmed_at') !== undefined) record.phoneNumber = supabasePhone(phone);
    else
      addProblem(
        ctx,
        'phone',
        'the phone was never confirmed (phone_confirmed_at is empty), so it is not carried as a sign-in method',
        'supabase.phone-unconfirmed',
        'warning',
      );
  }
  readMetadata(ctx, values, record);
  const created = text('created_at');
  if (created !== undefined) {
    const ms = pgTimestamp(created);
    if (Number.isFinite(ms)) record.timeJoined = ms;
    else addProblem(ctx, 'created_at', 'created_at is not a timestamp; the join time is left out', 'source.type', 'warning');
  }
  const banned = text('banned_until');
  if (banned !== undefined) {
    const until = pgTimestamp(banned);
    if (Number.isNaN(until))
      addProblem(ctx, 'banned_until', 'banned_until is not a timestamp; the user is treated as banned', 'source.type', 'warning');
    if (Number.isNaN(until) || until > now) record.disabled = true;
  }
  if (text('deleted_at') !== undefined) {
    record.disabled = true;
    addProblem(
      ctx,
      'deleted_at',
      'the user was soft-deleted in Supabase (deleted_at is set); handled as a disabled user',
      'supabase.soft-deleted',
      'warning',
    );
  }
  if (isTrue(values['is_anonymous'])) {
    fields?.dropped(FORMAT, 'users.is_anonymous', 'an anonymous Supabase user has no email, phone or identity to sign in with');
    addProblem(
      ctx,
      'is_anonymous',
      'an anonymous Supabase user has nothing to sign in with; leave it out or link an identity first',
      'supabase.anonymous',
      'warning',
    );
  }
  return { kind: 'record', value: { record, origin, problems: ctx.problems } };
}

/**
 * GoTrue writes bcrypt; users imported into Supabase may carry argon2 (taken as they are) or a Firebase scrypt hash
 * in GoTrue's `$fbscrypt$` form, converted to the core's `$f_scrypt$` string (firebase-digests.ts) with its signer
 * key checked against the run's. Any other hash goes to legacyPassword for the sign-in migration.
 */
function readHash(ctx: FieldContext, hash: string, record: CanonicalUser, keys?: SignerKeyCheck): void {
  if (/^\$(?:2[abxy]?|argon2(?:id|i|d))\$/.test(hash)) {
    record.password = { hash };
    return;
  }
  if (hash.startsWith('$fbscrypt$')) {
    const digest = fromFbscrypt(hash);
    if (digest.ok) {
      record.password = { hash: digest.hash, algorithm: 'external_scrypt' };
      const wrong = keys?.check(digest.signerKey, ctx.origin);
      if (wrong) addProblem(ctx, 'encrypted_password', wrong, 'password.scrypt.signer-key');
      return;
    }
    addProblem(
      ctx,
      'encrypted_password',
      `the $fbscrypt$ hash cannot be converted to the core's Firebase scrypt form (${digest.why}); it is kept for migration at first sign-in`,
      'supabase.fbscrypt',
      'warning',
    );
    record.legacyPassword = { algorithm: 'fbscrypt', hash };
    return;
  }
  const algorithm = /^\$([A-Za-z0-9_-]{1,20})\$/.exec(hash)?.[1] ?? 'unknown';
  // The validator names it (password.unusable) and the run's --unusable-hashes decides.
  record.legacyPassword = { algorithm, hash };
}

/**
 * raw_user_meta_data -> metadata.user_metadata, raw_app_meta_data -> metadata.app_metadata (the names supabase-js
 * gives them on its user object, and the Auth0 reader's names), its `roles` list -> roles.
 */
function readMetadata(ctx: FieldContext, values: Record<string, unknown>, record: CanonicalUser): void {
  const metadata: Record<string, unknown> = {};
  const user = objectColumn(ctx, values, 'raw_user_meta_data');
  if (user && Object.keys(user).length > 0) metadata['user_metadata'] = user;
  const app = objectColumn(ctx, values, 'raw_app_meta_data');
  if (app && Object.keys(app).length > 0) {
    metadata['app_metadata'] = app;
    const roles = app['roles'];
    if (roles !== undefined && roles !== null) {
      if (Array.isArray(roles) && roles.every((r) => typeof r === 'string' && r.trim() !== '')) {
        if (roles.length > 0) record.roles = [...new Set(roles as string[])];
      } else
        addProblem(
          ctx,
          'raw_app_meta_data.roles',
          'raw_app_meta_data.roles must be a list of role names; no role is carried',
          'source.type',
        );
    }
  }
  if (Object.keys(metadata).length > 0) record.metadata = metadata;
}

function objectColumn(ctx: FieldContext, values: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const raw = values[key];
  if (raw === undefined || raw === null || raw === '') return undefined;
  const parsed = jsonColumn(raw);
  if (!parsed.ok || !isObject(parsed.value)) {
    addProblem(ctx, key, `${key} must be a JSON object; it is not carried`, 'source.type');
    return undefined;
  }
  return parsed.value;
}
