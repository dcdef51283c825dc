// Per-record rules (everything knowable from one record): id, external id, emails, phones, third-party
// identities, one-time-code factors, first factors, disabled users. Builds the normalised record.
import { isValidEmail, normaliseEmail, normalisePhone } from './normalise.js';
import { checkLegacyPassword, unusableHash, type UnusableHashPolicy } from './legacy-rules.js';
import { checkPassword } from './password-rules.js';
import { flag, text, type RuleContext } from './rule-context.js';
import { checkSizes } from './size-rules.js';
import { checkTotpDevices } from './totp-rules.js';
import type { CanonicalOtpFactors, CanonicalRole, CanonicalThirdParty, CanonicalUser } from './types.js';

export const MAX_EXTERNAL_USER_ID = 128;

export interface RecordRuleOptions {
  /** Decoded length of the signer key, to catch scrypt hashes that can never verify. */
  signerKeyBytes?: number;
  /** Users whose hash the core cannot take: `skip` (default: an error, left out) or `without-password`. */
  unusableHashes?: UnusableHashPolicy;
  /** How `run` treats disabled users (`--disabled`), so the warning says what the run will do (default skip). */
  disabled?: 'skip' | 'import' | { role: string };
}

/** What `run` does with a disabled user under the policy, for its warning. */
function disabledMessage(policy: RecordRuleOptions['disabled']): string {
  const head = 'the user is disabled or blocked in the source and the core has no disabled state: ';
  if (policy === 'import') return head + '`run` migrates it anyway (--disabled import), so it can sign in';
  if (typeof policy === 'object')
    return (
      head + `\`run\` migrates it with the role ${policy.role} (--disabled role:${policy.role}): the app must refuse users with that role`
    );
  // The record is valid (its data is whole); what run does with it is the --disabled choice, said as such.
  return (
    head +
    'its record is valid, but `run` leaves it out under --disabled skip, the default (--disabled import migrates it anyway, and it could then sign in; --disabled role:NAME with a role the app refuses)'
  );
}

export function checkRecord(ctx: RuleContext, raw: CanonicalUser, options: RecordRuleOptions): CanonicalUser {
  const input = raw as unknown as Record<string, unknown>;
  const id = text(input.id);
  if (id === undefined) flag(ctx, 'error', 'id.missing', 'id', 'every record needs a non-empty `id` (the source id); add it');
  const out: CanonicalUser = { id: id ?? '' };
  if (checkSizes(ctx, input)) return out;

  const email = checkEmail(ctx, input.email, 'email');
  if (email !== undefined) out.email = email;
  if (typeof input.emailVerified === 'boolean') out.emailVerified = input.emailVerified;

  if (input.externalUserId !== undefined && input.externalUserId !== null) {
    const external = checkExternalUserId(ctx, input.externalUserId);
    if (external !== undefined) out.externalUserId = external;
  }
  checkPasswords(ctx, input, out, options);

  if (input.thirdParty !== undefined && input.thirdParty !== null) {
    const thirdParty = checkThirdParty(ctx, input.thirdParty, email);
    if (thirdParty.length > 0) out.thirdParty = thirdParty;
  }

  if (!isBlank(input.phoneNumber)) {
    const phone = checkPhone(ctx, input.phoneNumber, 'phoneNumber');
    if (phone !== undefined) out.phoneNumber = phone;
  }

  if (input.totp !== undefined && input.totp !== null) {
    const totp = checkTotpDevices(ctx, input.totp);
    if (totp.length > 0) out.totp = totp;
  }

  if (input.otpFactors !== undefined && input.otpFactors !== null) {
    const otp = checkOtpFactors(ctx, input.otpFactors);
    if (otp) out.otpFactors = otp;
  }

  if (typeof input.timeJoined === 'number' && Number.isFinite(input.timeJoined)) out.timeJoined = input.timeJoined;
  if (input.metadata !== undefined && input.metadata !== null) {
    if (typeof input.metadata !== 'object' || Array.isArray(input.metadata)) {
      flag(
        ctx,
        'error',
        'metadata.type',
        'metadata',
        '`metadata` must be a JSON object (its top-level keys go into the user metadata); fix the record',
      );
    } else out.metadata = input.metadata as Record<string, unknown>;
  }
  if (input.roles !== undefined && input.roles !== null) {
    const roles = checkRoles(ctx, input.roles);
    if (roles && roles.length > 0) out.roles = roles;
  }
  if (input.disabled === true) {
    out.disabled = true;
    flag(ctx, 'warning', 'record.disabled', undefined, disabledMessage(options.disabled));
  }

  checkFirstFactor(ctx, input, out);
  return out;
}

/** The external user id the core should keep, or undefined when it is empty or too long (flagged). */
function checkExternalUserId(ctx: RuleContext, value: unknown): string | undefined {
  const external = text(value);
  if (external === undefined) {
    flag(
      ctx,
      'error',
      'externalUserId.empty',
      'externalUserId',
      '`externalUserId` is empty; give the id the core should keep, or leave the field out',
    );
    return undefined;
  }
  if (external.length > MAX_EXTERNAL_USER_ID) {
    flag(
      ctx,
      'error',
      'externalUserId.too-long',
      'externalUserId',
      `\`externalUserId\` is ${external.length} characters; the core accepts at most ${MAX_EXTERNAL_USER_ID}: shorten it or leave it out`,
    );
    return undefined;
  }
  return external;
}

/** The password, or else a legacy password, into `out`; an email is required with either. */
function checkPasswords(ctx: RuleContext, input: Record<string, unknown>, out: CanonicalUser, options: RecordRuleOptions): void {
  if (input.password !== undefined && input.password !== null) {
    const password = checkPassword(ctx, input.password, options.signerKeyBytes, (legacy, rule, why) =>
      unusableHash(ctx, out, legacy, rule, why, options.unusableHashes),
    );
    if (password) out.password = password;
    if (isBlank(input.email)) {
      flag(
        ctx,
        'error',
        'email.missing',
        'email',
        'a user with a password needs an email (the core signs email-password users in by email); add the email or leave the password out',
      );
    }
  }

  if (input.legacyPassword !== undefined && input.legacyPassword !== null) {
    if (out.password || out.legacyPassword) {
      flag(
        ctx,
        'warning',
        'password.legacy.ignored',
        'legacyPassword',
        'the record has a password as well as legacyPassword; the password is used and legacyPassword ignored',
      );
    } else {
      checkLegacyPassword(ctx, input.legacyPassword, out, options.unusableHashes);
      if (isBlank(input.email))
        flag(ctx, 'error', 'email.missing', 'email', 'a user with a legacy password needs an email (it signs in by email); add the email');
    }
  }
}

const FIRST_FACTOR_FIELD = /^(password|thirdParty|phoneNumber)\b/;
/** The rules of a row a reader could not read whole. */
const DAMAGED_ROW = new Set(['source.csv', 'firebase-csv.columns']);

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function checkEmail(ctx: RuleContext, value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    flag(ctx, 'error', 'email.syntax', field, 'the email must be a string; fix the record');
    return undefined;
  }
  const email = normaliseEmail(value);
  if (email === '') return undefined;
  if (!isValidEmail(email)) {
    flag(
      ctx,
      'error',
      'email.syntax',
      field,
      'the email is not a valid address (name@domain.tld), so the user could not sign in with it; correct it',
    );
    return undefined;
  }
  return email;
}

function checkPhone(ctx: RuleContext, value: unknown, field: string): string | undefined {
  if (typeof value !== 'string') {
    flag(ctx, 'error', 'phone.e164', field, 'the phone number must be a string in E.164 form (e.g. +14155550123); fix the record');
    return undefined;
  }
  const result = normalisePhone(value);
  if (!result.ok) {
    flag(ctx, 'error', 'phone.e164', field, result.reason);
    return undefined;
  }
  if (result.changed) {
    flag(
      ctx,
      'warning',
      'phone.normalised',
      field,
      `the core stores this number as ${result.phone} (libphonenumber's E.164, as the reference core formats it); it is migrated, matched and verified in that form: check it is the same line`,
    );
  }
  return result.phone;
}

function checkThirdParty(ctx: RuleContext, value: unknown, recordEmail: string | undefined): CanonicalThirdParty[] {
  if (!Array.isArray(value)) {
    flag(
      ctx,
      'error',
      'thirdParty.type',
      'thirdParty',
      '`thirdParty` must be a list `[{ "providerId": "google", "userId": "..." }]`; fix the record',
    );
    return [];
  }
  const out: CanonicalThirdParty[] = [];
  for (let i = 0; i < value.length; i++) {
    const field = `thirdParty[${i}]`;
    const entry = value[i] as Record<string, unknown> | null;
    const providerId = typeof entry === 'object' && entry !== null ? text(entry.providerId) : undefined;
    const userId = typeof entry === 'object' && entry !== null ? text(entry.userId) : undefined;
    if (providerId === undefined || userId === undefined) {
      flag(
        ctx,
        'error',
        'thirdParty.missing-field',
        field,
        "a third-party sign-in needs a `providerId` (e.g. google) and the provider's `userId`; add them",
      );
      continue;
    }
    const own = checkEmail(ctx, entry!.email, `${field}.email`);
    // The core's third-party sign-in needs an email: fall back to the record's own.
    const email = own ?? recordEmail;
    if (email === undefined) {
      if (isBlank(entry!.email)) {
        flag(
          ctx,
          'error',
          'thirdParty.email-missing',
          `${field}.email`,
          'the core needs an email for a third-party sign-in and this user has none; add the email the provider gives',
        );
      }
      continue;
    }
    if (out.some((t) => t.providerId === providerId && t.userId === userId)) {
      flag(ctx, 'error', 'thirdParty.duplicate', field, `the record lists the ${providerId} identity twice; remove one`);
      continue;
    }
    const tp: CanonicalThirdParty = { providerId, userId, email };
    const verified = own !== undefined ? entry!.emailVerified : undefined;
    if (typeof verified === 'boolean') tp.emailVerified = verified;
    out.push(tp);
  }
  return out;
}

function checkOtpFactors(ctx: RuleContext, value: unknown): CanonicalOtpFactors | undefined {
  if (typeof value !== 'object' || Array.isArray(value) || value === null) {
    flag(
      ctx,
      'error',
      'otp.type',
      'otpFactors',
      '`otpFactors` must be an object `{ "email": "...", "phoneNumber": "+..." }`; fix the record',
    );
    return undefined;
  }
  const input = value as Record<string, unknown>;
  const hasEmail = !isBlank(input.email);
  const hasPhone = !isBlank(input.phoneNumber);
  if (!hasEmail && !hasPhone) {
    flag(
      ctx,
      'error',
      'otp.empty',
      'otpFactors',
      'a one-time-code factor needs an email or a phone number to send codes to; add one or remove `otpFactors`',
    );
    return undefined;
  }
  const out: CanonicalOtpFactors = {};
  if (hasEmail) {
    const email = checkEmail(ctx, input.email, 'otpFactors.email');
    if (email !== undefined) out.email = email;
  }
  if (hasPhone) {
    const phone = checkPhone(ctx, input.phoneNumber, 'otpFactors.phoneNumber');
    if (phone !== undefined) out.phoneNumber = phone;
  }
  return out.email !== undefined || out.phoneNumber !== undefined ? out : undefined;
}

/** Second factors attach to a first factor: a password, a third-party sign-in or phone sign-in. */
function checkFirstFactor(ctx: RuleContext, input: Record<string, unknown>, out: CanonicalUser): void {
  // Judge on what the source states, so a first factor with its own error is not reported twice.
  // A record's own `legacyPassword` counts too (checked later; a reader's Firebase HMAC or Cognito user has only that).
  const hasPassword =
    (input.password !== undefined && input.password !== null) ||
    out.legacyPassword !== undefined ||
    (input.legacyPassword !== undefined && input.legacyPassword !== null);
  const hasThirdParty = Array.isArray(input.thirdParty) && input.thirdParty.length > 0;
  const hasPhone = !isBlank(input.phoneNumber);
  if (hasPassword || hasThirdParty || hasPhone) return;
  // A reader that dropped a malformed first-factor field has already said so; do not pile on. Nor on a row the file
  // damaged: its record holds only the id, and the reader's error says why (sources/damaged-rows.ts).
  if (
    ctx.problems.some(
      (p) => p.severity === 'error' && ((p.field !== undefined && FIRST_FACTOR_FIELD.test(p.field)) || DAMAGED_ROW.has(p.rule)),
    )
  )
    return;
  const hasTotp =
    Array.isArray(input.totp) &&
    input.totp.some((d) => typeof d === 'object' && d !== null && !isBlank((d as { secret?: unknown }).secret));
  const hasOtp = typeof input.otpFactors === 'object' && input.otpFactors !== null;
  if (hasTotp || hasOtp || out.totp !== undefined) {
    flag(
      ctx,
      'error',
      'factors.no-first-factor',
      undefined,
      'the user has TOTP or one-time-code factors but no first factor (password, third-party or phone sign-in) to attach them to; add one or leave the user out',
    );
  } else {
    flag(
      ctx,
      'error',
      'record.no-first-factor',
      undefined,
      'the user has no way to sign in (no password, third-party or phone sign-in), so there is nothing to migrate; add one or leave the user out',
    );
  }
}

/** `roles`: role names, or `{ "role": name, "tenantIds": [...] }`; every name non-empty. */
function checkRoles(ctx: RuleContext, value: unknown): CanonicalRole[] | undefined {
  const bad = (i: number) =>
    flag(
      ctx,
      'error',
      'roles.type',
      `roles[${i}]`,
      'a role is a name, or `{ "role": "name", "tenantIds": ["t1"] }` with non-empty names; fix the record',
    );
  if (!Array.isArray(value)) {
    flag(ctx, 'error', 'roles.type', 'roles', '`roles` must be a list of role names (or `{ "role", "tenantIds" }`); fix the record');
    return undefined;
  }
  const out: CanonicalRole[] = [];
  value.forEach((r, i) => {
    if (typeof r === 'string' && r.trim() !== '') out.push(r.trim());
    else if (
      typeof r === 'object' &&
      r !== null &&
      typeof (r as { role?: unknown }).role === 'string' &&
      (r as { role: string }).role.trim() !== ''
    ) {
      const t = (r as { tenantIds?: unknown }).tenantIds;
      if (t !== undefined && (!Array.isArray(t) || t.some((x) => typeof x !== 'string' || x.trim() === ''))) return bad(i);
      out.push({
        role: (r as { role: string }).role.trim(),
        ...(Array.isArray(t) ? { tenantIds: (t as string[]).map((x) => x.trim()) } : {}),
      });
    } else bad(i);
  });
  return out;
}
