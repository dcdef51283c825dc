// Readers entry point: turn export files (canonical, Firebase JSON and CSV, Auth0, Clerk, Supabase, Keycloak, Cognito,
// TOTP lists) into canonical records, streamed, with per-line problems as items and unreadable files as UserErrors.
import type { Problem, SourceRecord } from '../records/types.js';
import { UserError } from '../errors.js';
import { readAuth0 } from './auth0.js';
import { readCanonical } from './canonical.js';
import { detectFormat } from './detect.js';
import type { FieldReport } from './field-report.js';
import { readFirebase } from './firebase.js';
import { readFirebaseCsv } from './firebase-csv.js';
import { readClerk } from './clerk.js';
import { readKeycloak } from './keycloak.js';
import { readCognito } from './cognito.js';
import { providerLookup } from './providers.js';
import { readSupabase } from './supabase.js';
import { checkStdinOnce } from './stdin.js';
import { SignerKeyCheck } from './firebase-digests.js';
import type { SourceFindings } from './findings.js';
import { TotpJoin } from './totp-join.js';
import { readTotpFile } from './totp.js';

export { DEFAULT_PROVIDER_MAP } from './providers.js';
export { detectFormat } from './detect.js';
export { parseHashConfig } from './hash-config.js';
export { STDIN } from './stdin.js';
export { FieldReport, renderFieldSummary, type FieldEntry, type FieldSummary } from './field-report.js';
export { SourceFindings, type DroppedClass, type DroppedClassRule } from './findings.js';

export type SourceFormat = 'canonical' | 'firebase' | 'auth0' | 'totp' | 'firebase-csv' | 'clerk' | 'supabase' | 'keycloak' | 'cognito';

/** Firebase scrypt parameters (the console's "Password hash parameters"). */
export interface HashConfig {
  /**
   * `SCRYPT` when absent. Other Firebase algorithms (HMAC_SHA256, MD5, PBKDF2_SHA256...) are hashes the core
   * cannot take: their users get a `legacyPassword` (see --unusable-hashes), and only `rounds` and the key matter.
   */
  algorithm?: string;
  signerKey?: string;
  saltSeparator: string;
  rounds: number;
  memCost: number;
}

export interface ReadOptions {
  /** Force one format for every file instead of sniffing. */
  format?: SourceFormat;
  hashConfig?: HashConfig;
  /** Source provider id -> third-party id; merged over DEFAULT_PROVIDER_MAP. */
  providerMap?: Record<string, string>;
  /** Where readers note each source field they carried or dropped (validate shows it; see field-report.ts). */
  fields?: FieldReport;
  /**
   * The run's signer key (base64), when given: Firebase scrypt digests that carry their own key (Supabase's
   * `$fbscrypt$`, Clerk's `scrypt_firebase`) must carry this one, the key the core is configured with.
   */
  signerKey?: string;
  /** Where readers note whole classes of users a missing setting or file would drop (findings.ts). */
  findings?: SourceFindings;
}

export type SourceItem = { kind: 'record'; value: SourceRecord } | { kind: 'problem'; problem: Problem };

export const SOURCE_FORMATS: readonly SourceFormat[] = [
  'canonical',
  'firebase',
  'auth0',
  'totp',
  'firebase-csv',
  'clerk',
  'supabase',
  'keycloak',
  'cognito',
];

/**
 * Read every file as one set of records. TOTP lists are loaded first (the small side) and joined to the
 * records of the other files by id or email; Auth0 files are read together so password-hash and user
 * exports join. Unreadable files throw a UserError; bad elements come out as `problem` items.
 */
export async function* readSources(paths: string[], options: ReadOptions = {}): AsyncGenerator<SourceItem> {
  for await (const batch of readSourceBatches(paths, options)) yield* batch;
}

/** The same items as readSources, one array per chunk read: fewer async steps for callers that count speed. */
export async function* readSourceBatches(paths: string[], options: ReadOptions = {}): AsyncGenerator<SourceItem[]> {
  if (paths.length === 0) throw new UserError('no input files; give at least one export file');
  checkStdinOnce(paths);
  const formats: SourceFormat[] = [];
  for (const path of paths) formats.push(options.format ?? (await detectFormat(path)));
  const providers = providerLookup(options.providerMap);
  const { fields, findings } = options;
  // One check for every file: the core holds one signer key, whichever vendor's digests carry it.
  const keys = new SignerKeyCheck(options.signerKey ?? options.hashConfig?.signerKey);

  const join = new TotpJoin();
  for (let i = 0; i < paths.length; i++) {
    if (formats[i] !== 'totp') continue;
    const problems: SourceItem[] = [];
    for await (const item of readTotpFile(paths[i]!)) {
      if (item.ok) join.add(item.row);
      else problems.push({ kind: 'problem', problem: item.problem });
    }
    if (problems.length > 0) yield problems;
  }

  const auth0Files = paths.filter((_, i) => formats[i] === 'auth0');
  let auth0Done = false;
  // Supabase's auth tables are read together too: identities and factors join their users.
  const supabaseFiles = paths.filter((_, i) => formats[i] === 'supabase');
  let supabaseDone = false;
  let cognitoDone = false;
  for (let i = 0; i < paths.length; i++) {
    const path = paths[i]!;
    let batches: AsyncIterable<SourceItem[]>;
    switch (formats[i]) {
      case 'totp':
        continue;
      case 'auth0':
        if (auth0Done) continue;
        auth0Done = true;
        batches = readAuth0(auth0Files, providers, findings);
        break;
      case 'supabase':
        if (supabaseDone) continue;
        supabaseDone = true;
        batches = readSupabase(supabaseFiles, { providers, fields, findings, keys });
        break;
      case 'keycloak':
        batches = readKeycloak(path, { providers, fields });
        break;
      case 'firebase':
        batches = readFirebase(path, { hashConfig: options.hashConfig, providers, findings });
        break;
      case 'firebase-csv':
        batches = readFirebaseCsv(path, { hashConfig: options.hashConfig, providers, fields, findings });
        break;
      case 'clerk':
        batches = readClerk(path, { fields, keys });
        break;
      case 'cognito':
        // Read together: a login linked across pages (files) is still one user.
        if (cognitoDone) continue;
        cognitoDone = true;
        batches = readCognito(
          paths.filter((_, j) => formats[j] === 'cognito'),
          { providers, fields },
        );
        break;
      default:
        batches = readCanonical(path);
    }
    for await (const batch of batches) {
      if (join.size > 0) for (const item of batch) if (item.kind === 'record') join.attach(item.value);
      yield batch;
    }
  }
  const unmatched = join.unmatched();
  if (unmatched.length > 0) yield unmatched.map((problem) => ({ kind: 'problem', problem }));
  const keyNote = keys.withoutKey();
  if (keyNote) yield [{ kind: 'problem', problem: keyNote }];
}
