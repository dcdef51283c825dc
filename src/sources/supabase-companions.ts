// Supabase's users table read without its companions: auth.identities holds every social and SSO login, and
// auth.mfa_factors every TOTP secret and phone factor; without them those users would arrive with less than they
// have, and nothing in the users file would say so. Counted here (users whose raw_app_meta_data names a provider
// that only auth.identities carries) and noted as a finding naming the file expected beside the users file.
import { existsSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import type { SourceFindings } from './findings.js';
import { isObject } from './fields.js';
import { jsonColumn } from './table-rows.js';

/** Providers whose identity is the user's own email or phone, already in auth.users. */
const OWN = new Set(['email', 'phone']);

export class CompanionCheck {
  private readonly missingIdentities: boolean;
  private readonly missingFactors: boolean;
  private usersPath: string | undefined;
  /** Whether the users file has raw_app_meta_data, the only column that names a user's providers. */
  private knowsProviders = true;
  private socialUsers = 0;

  constructor(
    tables: Record<'users' | 'identities' | 'mfa_factors', string[]>,
    private readonly findings: SourceFindings | undefined,
  ) {
    this.missingIdentities = tables.identities.length === 0;
    this.missingFactors = tables.mfa_factors.length === 0;
  }

  usersFile(path: string, columns: string[]): void {
    this.usersPath ??= path;
    if (!columns.includes('raw_app_meta_data') && !columns.includes('is_sso_user')) this.knowsProviders = false;
  }

  /** One auth.users row: counted when only auth.identities could carry one of its logins. */
  user(values: Record<string, unknown>): void {
    if (!this.missingIdentities || !this.findings) return;
    const sso = values['is_sso_user'];
    if (sso === true || sso === 't' || sso === 'true') {
      this.socialUsers++;
      return;
    }
    const app = jsonColumn(values['raw_app_meta_data']);
    const providers = app.ok && isObject(app.value) ? app.value['providers'] : undefined;
    if (Array.isArray(providers) && providers.some((p) => typeof p === 'string' && !OWN.has(p))) this.socialUsers++;
  }

  finish(): void {
    if (!this.findings || this.usersPath === undefined) return;
    if (this.missingIdentities && (this.socialUsers > 0 || !this.knowsProviders)) {
      const expected = this.expected('identities');
      this.findings.dropped(
        {
          rule: 'companion.missing',
          loses: 'their social and SSO logins (auth.identities)',
          because: `no export of auth.identities was given${this.beside(expected)}`,
          fix: `give ${expected} with the users file (docs/formats.md, Supabase), or run with --allow-partial to go on without them`,
          expectedFile: expected,
        },
        this.knowsProviders ? this.socialUsers : 'unknown',
      );
    }
    if (this.missingFactors) {
      const expected = this.expected('mfa_factors');
      this.findings.dropped(
        {
          rule: 'companion.missing',
          loses: 'their TOTP devices and phone factors (auth.mfa_factors; the users table does not say who has them)',
          because: `no export of auth.mfa_factors was given${this.beside(expected)}`,
          fix: `give ${expected} with the users file (a project without MFA exports a header line), or run with --allow-partial to go on without them`,
          expectedFile: expected,
        },
        'unknown',
      );
    }
  }

  /** The companion's name beside the users file, in its format: `identities.csv` next to `users.csv`. */
  private expected(table: string): string {
    const path = this.usersPath!;
    const gz = /\.gz$/i.test(path) ? '.gz' : '';
    const ext = extname(basename(path).replace(/\.gz$/i, '')) || '.csv';
    return join(dirname(path), `${table}${ext}${gz}`);
  }

  private beside(expected: string): string {
    return existsSync(expected) ? ' (there is one beside the users file)' : '';
  }
}
