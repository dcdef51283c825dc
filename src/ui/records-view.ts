// How one record is described on screen: table cells and a detail view, with every secret masked.
import { detectAlgorithm } from '../hashes/formats.js';
import { describeOrigin, formatProblem, type CanonicalUser } from '../records/types.js';
import type { PreviewRecord } from './services/types.js';

export function firstFactor(r: CanonicalUser): string {
  if (r.password) return 'password';
  if (r.thirdParty && r.thirdParty.length > 0) return r.thirdParty[0]!.providerId;
  if (r.phoneNumber) return 'phone';
  return '—';
}

export function algorithmOf(r: CanonicalUser): string {
  if (!r.password) return '';
  const a = r.password.algorithm ?? detectAlgorithm(r.password.hash);
  return a === 'external_scrypt' ? 'scrypt' : (a ?? '?');
}

export function factorsOf(r: CanonicalUser): string {
  const parts: string[] = [];
  if (r.totp && r.totp.length > 0) parts.push(`totp×${r.totp.length}`);
  if (r.otpFactors?.email) parts.push('email');
  if (r.otpFactors?.phoneNumber) parts.push('sms');
  return parts.join(' ');
}

export function problemsOf(row: PreviewRecord): string {
  const e = row.problems.filter((p) => p.severity === 'error').length;
  const w = row.problems.length - e;
  return [e ? `${e} error${e > 1 ? 's' : ''}` : '', w ? `${w} warning${w > 1 ? 's' : ''}` : ''].filter(Boolean).join(', ') || 'ok';
}

export interface TableCells {
  id: string;
  email: string;
  first: string;
  algorithm: string;
  factors: string;
  problems: string;
}

export function tableCells(row: PreviewRecord): TableCells {
  const r = row.record;
  return {
    id: r.id,
    email: r.email ?? r.phoneNumber ?? '',
    first: firstFactor(r),
    algorithm: algorithmOf(r),
    factors: factorsOf(r),
    problems: problemsOf(row),
  };
}

/** The detail view: secrets (password hash, TOTP secrets) are never shown, only what they are. */
export function detailLines(row: PreviewRecord): string[] {
  const r = row.record;
  const lines = [`id ${r.id}    from ${describeOrigin(row.origin)}`];
  if (r.email) lines.push(`email ${r.email}${r.emailVerified ? ' (verified)' : ''}`);
  if (r.externalUserId) lines.push(`external user id ${r.externalUserId}`);
  if (r.password) lines.push(`password ${algorithmOf(r)} hash (hidden, ${r.password.hash.length} chars)`);
  for (const t of r.thirdParty ?? []) lines.push(`third party ${t.providerId} user ${t.userId}${t.email ? ` <${t.email}>` : ''}`);
  if (r.phoneNumber) lines.push(`phone sign-in ${r.phoneNumber}`);
  (r.totp ?? []).forEach((t, i) =>
    lines.push(
      `totp[${i}] ${t.deviceName ?? '(unnamed)'} · secret hidden (${t.encoding ?? 'base32'}) · period ${t.period ?? 30}s · skew ${t.skew ?? 1}`,
    ),
  );
  if (r.otpFactors?.email) lines.push(`email one-time-code factor ${r.otpFactors.email}`);
  if (r.otpFactors?.phoneNumber) lines.push(`SMS one-time-code factor ${r.otpFactors.phoneNumber}`);
  if (r.timeJoined) lines.push(`joined ${new Date(r.timeJoined).toISOString()}`);
  if (r.disabled) lines.push('disabled in the source');
  // A valid record the run's settings leave out (a disabled user under the default) is not "will be migrated".
  const leftOut = row.problems.some((p) => p.message.includes('`run` leaves it out'));
  lines.push(!row.valid ? 'invalid: will be skipped' : leftOut ? 'valid, but the run leaves it out (below)' : 'valid: will be migrated');
  for (const p of row.problems) lines.push(formatProblem(p));
  return lines;
}
