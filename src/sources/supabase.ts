// The Supabase reader: `auth.users`, `auth.identities` and `auth.mfa_factors` exported as CSV (`\copy ... csv
// header`) or JSON lines, read together. The identities that add something (social and SSO logins) and the
// verified factors are the small side, kept by user_id; the users file is streamed and each user gets its own.
import type { Problem, SourceRecord } from '../records/types.js';
import { UserError } from '../errors.js';
import type { SourceItem } from './index.js';
import type { FieldReport } from './field-report.js';
import type { ProviderLookup } from './providers.js';
import { supabaseFactor, supabaseIdentity, type SupabaseLink } from './supabase-links.js';
import { supabaseUserItem } from './supabase-users.js';
import { readTableRows, tableColumns } from './table-rows.js';

export type SupabaseTable = 'users' | 'identities' | 'mfa_factors';

/** Which auth table a file holds, from its column names (CSV header or first JSON line). */
export function supabaseTableOf(columns: readonly string[]): SupabaseTable | null {
  const has = (c: string): boolean => columns.includes(c);
  if (has('factor_type')) return 'mfa_factors';
  if (has('identity_data')) return 'identities';
  if (has('encrypted_password') || has('raw_user_meta_data') || has('raw_app_meta_data') || has('email_confirmed_at')) return 'users';
  return null;
}

export interface SupabaseOptions {
  providers: ProviderLookup;
  fields?: FieldReport;
  /** For tests: the time `banned_until` is compared with. */
  now?: number;
}

export async function* readSupabase(paths: string[], options: SupabaseOptions): AsyncGenerator<SourceItem[]> {
  const byTable: Record<SupabaseTable, string[]> = { users: [], identities: [], mfa_factors: [] };
  for (const path of paths) {
    const table = supabaseTableOf(await tableColumns(path));
    if (table === null)
      throw new UserError(
        `${path} is not an export of auth.users, auth.identities or auth.mfa_factors (its columns do not say which); see docs/formats.md, Supabase`,
      );
    byTable[table].push(path);
  }
  if (byTable.users.length === 0)
    throw new UserError(
      `no auth.users export among ${paths.join(', ')}; identities and factors need their users (docs/formats.md, Supabase)`,
    );

  const links = new Map<string, SupabaseLink[]>();
  for (const table of ['identities', 'mfa_factors'] as const) {
    for (const path of byTable[table]) {
      for await (const batch of readTableRows(path)) {
        const problems: SourceItem[] = [];
        for (const item of batch) {
          if (!item.ok) {
            problems.push({ kind: 'problem', problem: item.problem });
            continue;
          }
          const { values, origin } = item.row;
          const link =
            table === 'identities'
              ? supabaseIdentity(values, origin, options.providers, options.fields)
              : supabaseFactor(values, origin, options.fields);
          if (link === null) continue;
          if (!('userId' in link)) problems.push({ kind: 'problem', problem: link });
          else (links.get(link.userId) ?? links.set(link.userId, []).get(link.userId)!).push(link);
        }
        if (problems.length > 0) yield problems;
      }
    }
  }

  for (const path of byTable.users) {
    for await (const batch of readTableRows(path)) {
      yield batch.map((item): SourceItem => {
        if (!item.ok) return { kind: 'problem', problem: item.problem };
        const out = supabaseUserItem(item.row.values, item.row.origin, options.fields, options.now);
        if (out.kind === 'record') {
          const mine = links.get(out.value.record.id);
          if (mine) {
            links.delete(out.value.record.id);
            attach(out.value, mine);
          }
        }
        return out;
      });
    }
  }
  const unmatched: SourceItem[] = [];
  for (const [userId, list] of links) for (const link of list) unmatched.push({ kind: 'problem', problem: unmatchedProblem(userId, link) });
  if (unmatched.length > 0) yield unmatched;
}

function attach(source: SourceRecord, links: SupabaseLink[]): void {
  const r = source.record;
  for (const link of links) {
    if (link.thirdParty) (r.thirdParty ??= []).push(link.thirdParty);
    if (link.totp) (r.totp ??= []).push(link.totp);
    if (link.smsPhone !== undefined) {
      if (r.otpFactors?.phoneNumber === undefined) r.otpFactors = { ...r.otpFactors, phoneNumber: link.smsPhone };
      else
        link.problems.push({
          severity: 'warning',
          rule: 'supabase.mfa-extra-phone',
          origin: link.origin,
          sourceId: r.id,
          field: 'mfa_factors.phone',
          message: 'a second phone factor cannot be migrated (one SMS factor per user); only the first is kept',
        });
    }
    source.problems.push(...link.problems);
  }
}

function unmatchedProblem(userId: string, link: SupabaseLink): Problem {
  return {
    severity: 'error',
    rule: 'supabase.unmatched',
    origin: link.origin,
    sourceId: userId,
    message: `no row of the auth.users export has id "${userId}"; export the users and their ${link.thirdParty ? 'identities' : 'factors'} at the same time`,
  };
}
