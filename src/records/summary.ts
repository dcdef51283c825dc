// Counts for the preview screen and `validate`: what the set holds (over every record read) and how it fared.
import type { ValidatedRecord, ValidationSummary } from './validate.js';
import type { Problem } from './types.js';

export function emptySummary(): ValidationSummary {
  return {
    records: 0,
    valid: 0,
    invalid: 0,
    errors: 0,
    warnings: 0,
    passwordUsers: { bcrypt: 0, argon2: 0, external_scrypt: 0 },
    thirdPartyUsers: {},
    phoneSignInUsers: 0,
    totpDevices: 0,
    emailFactors: 0,
    smsFactors: 0,
  };
}

export function countRecord(summary: ValidationSummary, validated: ValidatedRecord): void {
  const r = validated.record;
  summary.records++;
  if (validated.valid) summary.valid++;
  else summary.invalid++;
  if (r.password?.algorithm) summary.passwordUsers[r.password.algorithm]++;
  if (r.thirdParty) {
    for (let i = 0; i < r.thirdParty.length; i++) {
      const provider = r.thirdParty[i]!.providerId;
      // A user counts once per provider.
      if (r.thirdParty.findIndex((t) => t.providerId === provider) === i) {
        summary.thirdPartyUsers[provider] = (summary.thirdPartyUsers[provider] ?? 0) + 1;
      }
    }
  }
  if (r.legacyPassword && !r.password) {
    const u = (summary.unusableHashes ??= { policy: 'skip', users: 0, byAlgorithm: {} });
    u.users++;
    u.byAlgorithm[r.legacyPassword.algorithm] = (u.byAlgorithm[r.legacyPassword.algorithm] ?? 0) + 1;
  }
  if (r.phoneNumber !== undefined) summary.phoneSignInUsers++;
  if (r.totp) summary.totpDevices += r.totp.length;
  if (r.otpFactors?.email !== undefined) summary.emailFactors++;
  if (r.otpFactors?.phoneNumber !== undefined) summary.smsFactors++;
  countProblems(summary, validated.problems);
}

export function countProblems(summary: ValidationSummary, problems: Problem[]): void {
  for (const p of problems) {
    if (p.severity === 'error') summary.errors++;
    else summary.warnings++;
  }
}
