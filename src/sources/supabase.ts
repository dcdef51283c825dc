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
import { CompanionCheck } from './supabase-companions.js';
import { damagedRow } from './damaged-rows.js';
import type { SignerKeyCheck } from './firebase-digests.js';
import type { SourceFindings } from './findings.js';
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
  /** Where a missing or damaged companion file is noted (a class of users would lose what it holds). */
  findings?: SourceFindings;
  /** The signer key `$fbscrypt$` digests must carry (firebase-digests.ts). */
  keys?: SignerKeyCheck;
  /** For tests: the time `banned_until` is compared with. */
  now?: number;
}

/** Supabase's ids are UUIDs: a cell of a damaged row is taken as a user's id only when it is one. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
          let link: SupabaseLink | Problem | null;
          if (!item.ok) {
            // A damaged row is an error of the user it names: that user waits, never imported with less than it has.
            const userId = item.partial?.['user_id'];
            if (userId !== undefined && UUID.test(userId.trim()))
              link = { userId: userId.trim(), origin: item.problem.origin, problems: [] };
            else {
              options.findings?.dropped(damagedCompanion(path, item.problem.origin.line));
              problems.push({ kind: 'problem', problem: item.problem });
              continue;
            }
            link.problems.push({ ...item.problem, sourceId: link.userId });
          } else {
            const { values, origin } = item.row;
            link =
              table === 'identities'
                ? supabaseIdentity(values, origin, options.providers, options.fields)
                : supabaseFactor(values, origin, options.fields);
          }
          if (link === null) continue;
          if (!('userId' in link)) problems.push({ kind: 'problem', problem: link });
          else (links.get(link.userId) ?? links.set(link.userId, []).get(link.userId)!).push(link);
        }
        if (problems.length > 0) yield problems;
      }
    }
  }

  const companions = new CompanionCheck(byTable, options.findings);
  for (const path of byTable.users) {
    companions.usersFile(path, await tableColumns(path));
    for await (const batch of readTableRows(path)) {
      yield batch.map((item): SourceItem => {
        if (!item.ok) {
          const id = item.partial?.['id']?.trim();
          const out = damagedRow(id !== undefined && UUID.test(id) ? id : undefined, item.problem.origin, item.problem.message);
          if (out.kind === 'record') joinLinks(out.value, links);
          return out;
        }
        const out = supabaseUserItem(item.row.values, item.row.origin, options.fields, options.now, options.keys);
        if (out.kind === 'record') {
          companions.user(item.row.values);
          joinLinks(out.value, links);
        }
        return out;
      });
    }
  }
  companions.finish();
  const unmatched: SourceItem[] = [];
  for (const [userId, list] of links) for (const link of list) unmatched.push({ kind: 'problem', problem: unmatchedProblem(userId, link) });
  if (unmatched.length > 0) yield unmatched;
}

function joinLinks(source: SourceRecord, links: Map<string, SupabaseLink[]>): void {
  const mine = links.get(source.record.id);
  if (!mine) return;
  links.delete(source.record.id);
  attach(source, mine);
}

function damagedCompanion(path: string, line: number | undefined): Parameters<SourceFindings['dropped']>[0] {
  return {
    rule: 'companion.damaged',
    loses: 'the login or factor a damaged row of a companion file holds',
    because: `${path}${line !== undefined ? `:${line}` : ''} cannot be read and names no user it could be held back with`,
    fix: 'fix the file (export the table again); the row is listed among the problems',
    expectedFile: path,
  };
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
