// Preflight: before any write, check that the core answers, speaks our CDI version, accepts the api-key and
// has the paid features the migration will need. Returns findings to render; never throws for a core problem.
import { CoreAuthError, CoreClientError, CoreHttpError, CoreUnreachableError } from './errors.js';
import { probeScrypt } from './probe-scrypt.js';
import type { CoreClient, TenantConfigResult } from './types.js';

/** A first look at a core: a few quick retries (a blip), not the run's minute of backoff (a restart). */
export const QUICK_RETRY = { retries: 3, baseDelayMs: 100, maxDelayMs: 500 };

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
  | 'scrypt-name-unsupported'
  | 'signer-key-missing'
  | 'scrypt-probe-unknown'
  | 'login-method-disabled'
  | 'tenant-config-unknown'
  | 'insecure-transport'
  | 'core-error'
  /** `run --via bulk|bulk-staged` against a core without the bulk-import API. */
  | 'bulk-import-unavailable';

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
  /** The hashingAlgorithm name the core takes for the external scrypt variant (asked only when the plan has such hashes). */
  scryptAlgorithmName?: string;
  /** Whether the core holds the scrypt signer key (asked only when the plan has scrypt hashes). */
  signerKey?: boolean;
  /** Login methods the tenant has disabled (a request for them answers 403). */
  disabledLoginMethods?: LoginMethodName[];
  findings: PreflightFinding[];
}

export type LoginMethodName = 'emailpassword' | 'thirdparty' | 'passwordless';

/** What the plan needs from the target, learnt from the validation pass (migration/prepare.ts). */
export interface PlanNeeds {
  /** Some user has TOTP devices (the core needs the MFA feature). */
  totp?: boolean;
  /** Some user has several login methods or one-time-code factors (account linking). */
  linking?: boolean;
  /** Some user has an external scrypt hash (the core needs the name it takes and the signer key). */
  scrypt?: boolean;
  /** Login methods the plan creates. */
  loginMethods?: LoginMethodName[];
}

export interface PreflightOptions {
  /**
   * What the plan needs: a missing feature it needs is an error; one it does not need is not mentioned. Without
   * `needs` (nothing known about the data) missing features are warnings.
   */
  needs?: PlanNeeds;
  /** The operator's --scrypt-algorithm-name: only that name is probed. */
  scryptAlgorithmName?: string;
}

export async function preflight(client: CoreClient, options: PreflightOptions = {}): Promise<PreflightReport> {
  const report: PreflightReport = { url: client.url, ok: false, reachable: false, findings: [] };
  const add = (level: FindingLevel, code: FindingCode, message: string) => report.findings.push({ level, code, message });
  const done = () => ({ ...report, ok: !report.findings.some((f) => f.level === 'error') });

  // 0. The api key and every hash cross the network in clear over http:// to another host.
  if (plainHttpToAnotherHost(client.url)) {
    add(
      'warning',
      'insecure-transport',
      `${client.url} is plain http:// to a host that is not this machine: the api key, password hashes and TOTP secrets ` +
        'would cross the network unencrypted. Use https:// (or a tunnel) unless this network is private to you.',
    );
  }

  // 1. Reachable (no api-key needed for /hello): asked with a short retry budget, so a core that is down is said at
  // once instead of after the run's minute of backoff.
  try {
    const text = await client.withRetry(QUICK_RETRY).hello();
    report.reachable = true;
    if (!/hello/i.test(text))
      add('warning', 'not-a-core', `${client.url}/hello answered "${text.slice(0, 60)}" instead of "Hello": is this a core?`);
  } catch (err) {
    add('error', codeOf(err), messageOf(err, client));
    return done();
  }

  // 2. Api-key and versions (/apiversion checks the key).
  if (!(await checkVersions(client, report, add))) return done();

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
  await checkFeatures(client, options.needs, report, add);

  // 4. The tenant's login methods: a plan that needs a disabled one is refused before any write.
  await checkLoginMethods(client, options.needs, report, add);

  // 5. The scrypt variant: which name the core takes, and whether it holds the signer key (no write, see probe-scrypt.ts).
  if (options.needs?.scrypt && !report.disabledLoginMethods?.includes('emailpassword')) {
    await checkScrypt(client, options.scryptAlgorithmName, report, add);
  }
  return done();
}

type Add = (level: FindingLevel, code: FindingCode, message: string) => void;

/** The api key accepted and a CDI version both speak (/apiversion checks the key); false: the preflight ends here. */
async function checkVersions(client: CoreClient, report: PreflightReport, add: Add): Promise<boolean> {
  try {
    const { versions } = await client.apiVersion();
    report.apiKeyAccepted = true;
    report.versions = Array.isArray(versions) ? versions.map(String) : [];
    report.agreedCdiVersion = agreeVersion(report.versions);
    if (!report.agreedCdiVersion) {
      add(
        'error',
        'cdi-version-unsupported',
        `the core at ${client.url} speaks CDI ${report.versions.join(', ') || '(none listed)'}; ` +
          `auth-migrate needs one of ${SPOKEN_CDI_VERSIONS.join(', ')}. Upgrade the core.`,
      );
    } else if (!report.versions.includes(client.cdiVersion)) {
      add(
        'error',
        'cdi-version-unsupported',
        `the core does not list CDI ${client.cdiVersion}, the version this client sends; use ${report.agreedCdiVersion}.`,
      );
    } else if (client.cdiVersion !== PREFERRED_CDI_VERSION) {
      add('info', 'cdi-version-other', `speaking CDI ${client.cdiVersion} (${PREFERRED_CDI_VERSION} is the tested version).`);
    }
    return true;
  } catch (err) {
    if (err instanceof CoreAuthError) {
      report.apiKeyAccepted = false;
      add('error', 'api-key-rejected', err.message);
      return false;
    }
    add('error', codeOf(err), messageOf(err, client));
    return false;
  }
}

/** Paid features: warn (or refuse, when the plan needs them) before any write that TOTP or linking would get 402. */
async function checkFeatures(client: CoreClient, needs: PlanNeeds | undefined, report: PreflightReport, add: Add): Promise<void> {
  try {
    const flags = await client.featureFlags();
    const features = Array.isArray(flags.features) ? flags.features.map((f) => String(f).toLowerCase()) : [];
    report.features = features;
    report.totpAllowed = features.includes('mfa');
    report.linkingAllowed = features.includes('account_linking') || features.includes('mfa');
    if (!report.totpAllowed && (!needs || needs.totp)) {
      add(
        needs?.totp ? 'error' : 'warning',
        'totp-needs-mfa',
        'the core has no licence for MFA: importing TOTP devices would be refused (HTTP 402). ' +
          'Set a licence key with the MFA feature (--license-key or AUTH_MIGRATE_LICENSE_KEY).',
      );
    }
    if (!report.linkingAllowed && (!needs || needs.linking)) {
      add(
        needs?.linking ? 'error' : 'warning',
        'linking-needs-license',
        'the core has no licence for account linking: users with several login methods or one-time-code factors ' +
          'could not be made primary or linked (HTTP 402). Set a licence key with account_linking or MFA.',
      );
    }
  } catch (err) {
    add(
      'warning',
      'feature-flags-unknown',
      `could not read the core's features (${messageOf(err)}); TOTP import and linking may be refused with HTTP 402.`,
    );
  }
}

/** Factor ids of the reference core's tenant configuration, per login method (TenantConfig.toJson_v2_5_1). */
const FACTORS: Record<LoginMethodName, string[]> = {
  emailpassword: ['emailpassword'],
  thirdparty: ['thirdparty'],
  passwordless: ['otp-email', 'otp-phone', 'link-email', 'link-phone'],
};

async function checkLoginMethods(client: CoreClient, needs: PlanNeeds | undefined, report: PreflightReport, add: Add): Promise<void> {
  let config: TenantConfigResult;
  try {
    config = await client.getTenantConfig();
  } catch (err) {
    add(
      'warning',
      'tenant-config-unknown',
      `could not read the tenant's configuration (${messageOf(err)}); a disabled login method would be refused with HTTP 403.`,
    );
    return;
  }
  if (config.status !== 'OK' || !Array.isArray(config.firstFactors)) {
    report.disabledLoginMethods = [];
    return;
  }
  const factors = config.firstFactors;
  report.disabledLoginMethods = (Object.keys(FACTORS) as LoginMethodName[]).filter((m) => !FACTORS[m].some((f) => factors.includes(f)));
  for (const method of needs?.loginMethods ?? []) {
    if (!report.disabledLoginMethods.includes(method)) continue;
    add(
      'error',
      'login-method-disabled',
      `the tenant "${client.tenantId}" of app "${client.appId}" has ${method} login disabled (its firstFactors are ` +
        `[${factors.join(', ')}]), and the plan creates ${method} users: every such request would answer HTTP 403. ` +
        `Enable it on the core (PUT /recipe/multitenancy/tenant/v2 with firstFactors including ${FACTORS[method].join(' or ')}) or leave those users out.`,
    );
  }
}

async function checkScrypt(client: CoreClient, override: string | undefined, report: PreflightReport, add: Add): Promise<void> {
  let probe;
  try {
    probe = await probeScrypt(client, override);
  } catch (err) {
    add('error', 'scrypt-probe-unknown', `could not learn how the core takes external scrypt hashes: ${messageOf(err, client)}`);
    return;
  }
  if (probe.kind === 'unsupported') {
    add(
      'error',
      'scrypt-name-unsupported',
      `the core answers "Unsupported password hashing algorithm" to ${probe.tried.join(' and ')}, so it cannot import the ` +
        "plan's external scrypt (Firebase) hashes. " +
        (override
          ? 'Drop --scrypt-algorithm-name to let the preflight find the name, or use a core that supports them.'
          : 'Use a core that supports them.'),
    );
    return;
  }
  if (probe.kind === 'unknown') {
    add('error', 'scrypt-probe-unknown', `could not learn how the core takes external scrypt hashes: ${probe.message}`);
    return;
  }
  report.scryptAlgorithmName = probe.name;
  if (probe.kind === 'created') {
    add(
      'warning',
      'scrypt-probe-unknown',
      `the core accepted a malformed external scrypt hash for the probe address ${'preflight-probe@auth-migrate.invalid'} ` +
        '(it does not check the format): remove that user from the core.',
    );
    return;
  }
  report.signerKey = probe.signerKey;
  if (!probe.signerKey) {
    add(
      'error',
      'signer-key-missing',
      `the core takes "${probe.name}" but holds no signer key ('firebase_password_hashing_signer_key' cannot be null), so every ` +
        'external scrypt (Firebase) hash would fail: start the core with the base64_signer_key of the export ' +
        '(firebase_password_hashing_signer_key / FIREBASE_PASSWORD_HASHING_SIGNER_KEY; for the sandbox --signer-key or AUTH_MIGRATE_SIGNER_KEY).',
    );
  } else if (probe.name !== 'external_scrypt') {
    add('info', 'scrypt-name-unsupported', `the core names the external scrypt variant "${probe.name}": that name is sent.`);
  }
}

/** http:// to anything but loopback (127.0.0.0/8, ::1, localhost). */
export function plainHttpToAnotherHost(url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.protocol !== 'http:') return false;
  const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return !(host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host));
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
    return (
      `the core at ${client.url} has no app "${client.appId}" with tenant "${client.tenantId}": ` +
      'create them on the core first, or fix --app / --tenant.'
    );
  }
  if (err instanceof CoreClientError) return err.message;
  return err instanceof Error ? err.message : String(err);
}
