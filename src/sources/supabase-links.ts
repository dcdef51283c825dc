// Rows of Supabase's `auth.identities` (social and SSO logins) and `auth.mfa_factors` (TOTP secrets, phone
// factors), turned into the parts they add to a user; the reader keeps them by user_id until the user arrives.
import type { CanonicalThirdParty, CanonicalTotp, Problem, RecordOrigin } from '../records/types.js';
import type { FieldReport } from './field-report.js';
import { addProblem, isObject, type FieldContext } from './fields.js';
import type { ProviderLookup } from './providers.js';
import { supabasePhone } from './supabase-users.js';
import { jsonColumn } from './table-rows.js';

const FORMAT = 'supabase';

/** What one identity or factor row adds to its user. */
export interface SupabaseLink {
  userId: string;
  origin: RecordOrigin;
  thirdParty?: CanonicalThirdParty;
  totp?: CanonicalTotp;
  smsPhone?: string;
  /** Problems of the row, attached to the user's record once joined. */
  problems: Problem[];
}

const text = (values: Record<string, unknown>, key: string): string | undefined =>
  typeof values[key] === 'string' && values[key] !== '' ? (values[key] as string) : undefined;

function rowContext(values: Record<string, unknown>, origin: RecordOrigin): FieldContext | Problem {
  const ctx: FieldContext = { origin, problems: [] };
  const userId = text(values, 'user_id');
  if (userId === undefined) {
    addProblem(ctx, 'user_id', 'the row has no user_id, so it cannot be joined to a user', 'source.required');
    return ctx.problems[0]!;
  }
  ctx.sourceId = userId;
  return ctx;
}

/**
 * An auth.identities row: `email` and `phone` identities are the user's own email or phone (nothing to add);
 * any other provider is a third-party login with the provider's user id (`provider_id`, or `identity_data.sub`
 * in exports from before that column existed).
 */
export function supabaseIdentity(
  values: Record<string, unknown>,
  origin: RecordOrigin,
  providers: ProviderLookup,
  fields?: FieldReport,
): SupabaseLink | Problem | null {
  const ctx = rowContext(values, origin);
  if (!('problems' in ctx)) return ctx;
  const provider = text(values, 'provider');
  if (provider === undefined) {
    addProblem(ctx, 'identities.provider', 'the identity has no provider', 'source.required');
    return ctx.problems[0]!;
  }
  if (provider === 'email' || provider === 'phone') {
    fields?.mapped(FORMAT, `identities (provider ${provider})`, `${provider === 'email' ? 'email' : 'phoneNumber'} (the user's own)`);
    return null;
  }
  const parsed = jsonColumn(values['identity_data']);
  const data = parsed.ok && isObject(parsed.value) ? parsed.value : {};
  if (!parsed.ok)
    addProblem(ctx, 'identities.identity_data', 'identity_data is not a JSON object; only provider_id is used', 'source.type', 'warning');
  const providerUserId = text(values, 'provider_id') ?? (typeof data['sub'] === 'string' ? data['sub'] : undefined);
  if (providerUserId === undefined) {
    addProblem(
      ctx,
      'identities.provider_id',
      `the ${provider} identity has neither provider_id nor identity_data.sub; it cannot be carried`,
      'source.required',
    );
    return { userId: ctx.sourceId!, origin, problems: ctx.problems };
  }
  let mapped = providers(provider);
  if (mapped === undefined) {
    mapped = provider;
    addProblem(
      ctx,
      'identities.provider',
      `provider "${provider}" is not in the provider map; kept as "${provider}" — map it if the core names it differently`,
      'source.provider-unmapped',
      'warning',
    );
  }
  const tp: CanonicalThirdParty = { providerId: mapped, userId: providerUserId };
  const email = text(values, 'email') ?? (typeof data['email'] === 'string' ? data['email'] : undefined);
  if (email !== undefined) tp.email = email;
  if (typeof data['email_verified'] === 'boolean') tp.emailVerified = data['email_verified'];
  fields?.mapped(FORMAT, 'identities.provider, provider_id', 'thirdParty[].providerId, userId');
  if (email !== undefined) fields?.mapped(FORMAT, 'identities.email', 'thirdParty[].email');
  const profile = Object.keys(data).filter((k) => !['sub', 'email', 'email_verified', 'provider_id'].includes(k));
  if (profile.length > 0)
    fields?.dropped(
      FORMAT,
      'identities.identity_data (profile keys)',
      "the provider's profile at the last sign-in; the app's copy is raw_user_meta_data (metadata)",
    );
  for (const column of ['last_sign_in_at', 'created_at', 'updated_at'])
    if (text(values, column) !== undefined) fields?.dropped(FORMAT, `identities.${column}`, 'the core keeps no time per login method');
  return { userId: ctx.sourceId!, origin, thirdParty: tp, problems: ctx.problems };
}

/** An auth.mfa_factors row: a verified TOTP factor with its secret, or a verified phone factor. */
export function supabaseFactor(values: Record<string, unknown>, origin: RecordOrigin, fields?: FieldReport): SupabaseLink | Problem | null {
  const ctx = rowContext(values, origin);
  if (!('problems' in ctx)) return ctx;
  const type = text(values, 'factor_type');
  const status = text(values, 'status');
  const link: SupabaseLink = { userId: ctx.sourceId!, origin, problems: ctx.problems };
  if (status !== 'verified') {
    fields?.dropped(
      FORMAT,
      'mfa_factors (status unverified)',
      'an enrolment the user never completed; the user enrols again if they want it',
    );
    return null;
  }
  if (type === 'totp') {
    const secret = text(values, 'secret');
    if (secret === undefined) {
      addProblem(
        ctx,
        'mfa_factors.secret',
        'the TOTP factor has no secret; export the secret column of auth.mfa_factors',
        'source.required',
      );
      return link;
    }
    if (secret.trimStart().startsWith('{')) {
      addProblem(
        ctx,
        'mfa_factors.secret',
        'the TOTP secret is encrypted at rest (GOTRUE_SECURITY_DB_ENCRYPTION); export it decrypted, or the user enrols again',
        'supabase.secret-encrypted',
      );
      return link;
    }
    // GoTrue's TOTP factors are base32, SHA-1, 6 digits, 30 s: what the core verifies.
    link.totp = { secret, encoding: 'base32', period: 30 };
    const name = text(values, 'friendly_name');
    if (name !== undefined) link.totp.deviceName = name;
    fields?.mapped(FORMAT, 'mfa_factors.secret (totp)', 'totp[].secret');
    if (name !== undefined) fields?.mapped(FORMAT, 'mfa_factors.friendly_name', 'totp[].deviceName');
    return link;
  }
  if (type === 'phone') {
    const phone = text(values, 'phone');
    if (phone === undefined) {
      addProblem(ctx, 'mfa_factors.phone', 'the phone factor has no phone number', 'source.required');
      return link;
    }
    link.smsPhone = supabasePhone(phone);
    fields?.mapped(FORMAT, 'mfa_factors.phone', 'otpFactors.phoneNumber');
    return link;
  }
  fields?.dropped(
    FORMAT,
    `mfa_factors (factor_type ${type ?? 'empty'})`,
    'the core has no such second factor (only TOTP and SMS or email codes); the user enrols again',
  );
  return null;
}
