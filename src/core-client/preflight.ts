// Preflight: before any write, check that the core answers, speaks our CDI version, accepts the api-key and
// has the paid features the migration will need. Returns findings to render; never throws for a core problem.
import { CoreAuthError, CoreClientError, CoreHttpError, CoreUnreachableError } from './errors.js';
import type { CoreClient } from './types.js';

/** CDI versions whose shapes this client understands (account-linking user JSON, 5.x statuses). */
export const SPOKEN_CDI_VERSIONS = ['5.0', '5.1', '5.2', '5.3', '5.4', '5.5', '5.6'] as const;
export const PREFERRED_CDI_VERSION = '5.4';

export type FindingLevel = 'error' | 'warning' | 'info';

export type FindingCode =
  | 'unreachable'
  | 'not-a-core'
  | 'api-key-rejected'
  | 'unknown-tenant'
  | 'cdi-version-unsupported'
  | 'cdi-version-other'
  | 'feature-flags-unknown'
  | 'totp-needs-mfa'
  | 'linking-needs-license'
  | 'core-error';

export interface PreflightFinding {
  level: FindingLevel;
  code: FindingCode;
  message: string;
}

export interface PreflightReport {
  url: string;
  /** No finding of level error. */
  ok: boolean;
  reachable: boolean;
  /** undefined when the core could not be asked. */
  apiKeyAccepted?: boolean;
  /** Versions the core lists on /apiversion. */
  versions?: string[];
  /** Best version both sides speak (5.4 when listed), undefined if none. */
  agreedCdiVersion?: string;
  features?: string[];
  /** Whether TOTP import would be accepted (feature mfa); undefined when unknown. */
  totpAllowed?: boolean;
  /** Whether primary/link would be accepted (account_linking or mfa); undefined when unknown. */
  linkingAllowed?: boolean;
  findings: PreflightFinding[];
}

export interface PreflightOptions {
  /** When the plan is known to need these, a missing feature is an error instead of a warning. */
  needs?: { totp?: boolean; linking?: boolean };
}

export async function preflight(client: CoreClient, options: PreflightOptions = {}): Promise<PreflightReport> {
  const report: PreflightReport = { url: client.url, ok: false, reachable: false, findings: [] };
  const add = (level: FindingLevel, code: FindingCode, message: string) => report.findings.push({ level, code, message });
  const done = () => ({ ...report, ok: !report.findings.some((f) => f.level === 'error') });

  // 1. Reachable (no api-key needed for /hello).
  try {
    const text = await client.hello();
    report.reachable = true;
    if (!/hello/i.test(text)) add('warning', 'not-a-core', `${client.url}/hello answered "${text.slice(0, 60)}" instead of "Hello": is this a core?`);
  } catch (err) {
    add('error', codeOf(err), messageOf(err, client));
    return done();
  }

  // 2. Api-key and versions (/apiversion checks the key).
  try {
    const { versions } = await client.apiVersion();
    report.apiKeyAccepted = true;
    report.versions = Array.isArray(versions) ? versions.map(String) : [];
    report.agreedCdiVersion = agreeVersion(report.versions);
    if (!report.agreedCdiVersion) {
      add('error', 'cdi-version-unsupported',
        `the core at ${client.url} speaks CDI ${report.versions.join(', ') || '(none listed)'}; ` +
          `auth-migrate needs one of ${SPOKEN_CDI_VERSIONS.join(', ')}. Upgrade the core.`);
    } else if (!report.versions.includes(client.cdiVersion)) {
      add('error', 'cdi-version-unsupported',
        `the core does not list CDI ${client.cdiVersion}, the version this client sends; use ${report.agreedCdiVersion}.`);
    } else if (client.cdiVersion !== PREFERRED_CDI_VERSION) {
      add('info', 'cdi-version-other', `speaking CDI ${client.cdiVersion} (${PREFERRED_CDI_VERSION} is the tested version).`);
    }
  } catch (err) {
    if (err instanceof CoreAuthError) {
      report.apiKeyAccepted = false;
      add('error', 'api-key-rejected', err.message);
      return done();
    }
    add('error', codeOf(err), messageOf(err, client));
    return done();
  }

  // 2b. The tenant (and app) exist: a tenant-specific read answers 400 for an unknown one.
  if (client.tenantId !== 'public' || client.appId !== 'public') {
    try {
      await client.listUsers({ limit: 1 });
    } catch (err) {
      add('error', codeOf(err), messageOf(err, client));
      return done();
    }
  }

  // 3. Paid features: warn before any write that TOTP import or linking would be refused with 402.
  try {
    const flags = await client.featureFlags();
    const features = Array.isArray(flags.features) ? flags.features.map((f) => String(f).toLowerCase()) : [];
    report.features = features;
    report.totpAllowed = features.includes('mfa');
    report.linkingAllowed = features.includes('account_linking') || features.includes('mfa');
    if (!report.totpAllowed) {
      add(options.needs?.totp ? 'error' : 'warning', 'totp-needs-mfa',
        'the core has no licence for MFA: importing TOTP devices would be refused (HTTP 402). ' +
          'Set a licence key with the MFA feature (--license-key or AUTH_MIGRATE_LICENSE_KEY).');
    }
    if (!report.linkingAllowed) {
      add(options.needs?.linking ? 'error' : 'warning', 'linking-needs-license',
        'the core has no licence for account linking: users with several login methods or one-time-code factors ' +
          'could not be made primary or linked (HTTP 402). Set a licence key with account_linking or MFA.');
    }
  } catch (err) {
    add('warning', 'feature-flags-unknown',
      `could not read the core's features (${messageOf(err)}); TOTP import and linking may be refused with HTTP 402.`);
  }
  return done();
}

/** The preferred version when listed, else the highest listed version we speak. */
export function agreeVersion(versions: string[]): string | undefined {
  if (versions.includes(PREFERRED_CDI_VERSION)) return PREFERRED_CDI_VERSION;
  const common = SPOKEN_CDI_VERSIONS.filter((v) => versions.includes(v));
  return common.length ? common[common.length - 1] : undefined;
}

function isUnknownTenant(err: unknown): boolean {
  return err instanceof CoreHttpError && err.status === 400 && /AppId or tenantId not found|App with the following/.test(err.body);
}

function codeOf(err: unknown): FindingCode {
  if (err instanceof CoreUnreachableError) return 'unreachable';
  return isUnknownTenant(err) ? 'unknown-tenant' : 'core-error';
}

function messageOf(err: unknown, client?: CoreClient): string {
  if (client && isUnknownTenant(err)) {
    return `the core at ${client.url} has no app "${client.appId}" with tenant "${client.tenantId}": ` +
      'create them on the core first, or fix --app / --tenant.';
  }
  if (err instanceof CoreClientError) return err.message;
  return err instanceof Error ? err.message : String(err);
}
