// Typed errors of the core client: what went wrong talking to the core, with a message that says what to do.
// Messages never carry the api-key, a licence key or a request body (bodies may hold passwords and hashes).
import { UserError } from '../errors.js';

/** Longest piece of a core's answer quoted in a message. */
const MAX_QUOTED = 300;

/** The core's plain-text body, trimmed and shortened, for messages. */
export function quoteBody(text: string): string {
  const t = text.trim();
  return t.length > MAX_QUOTED ? `${t.slice(0, MAX_QUOTED)}…` : t;
}

/**
 * Base of every error the client throws. `fatal` says whether a run should stop (config, auth, licence,
 * an unreachable core) rather than fail just the one user. Extends UserError (exit code 2) so a fatal one
 * that reaches the CLI prints as one line.
 */
export class CoreClientError extends UserError {
  constructor(
    message: string,
    readonly fatal: boolean,
  ) {
    super(message, 2);
    this.name = 'CoreClientError';
  }
}

/** A non-200 answer not covered by the more specific classes (400, 403, 404, 405, 500 after retries...). */
export class CoreHttpError extends CoreClientError {
  constructor(
    readonly status: number,
    /** The core's plain-text body (trimmed). */
    readonly body: string,
    readonly method: string,
    readonly path: string,
    fatal = isFatalHttp(status, body),
  ) {
    super(`core answered HTTP ${status} to ${method} ${path}: ${quoteBody(body) || '(empty body)'}`, fatal);
    this.name = 'CoreHttpError';
  }
}

/** Answers that mean the whole run is misconfigured, not that this one user is bad. */
function isFatalHttp(status: number, body: string): boolean {
  if (status === 403 || status === 404 || status === 405) return true;
  if (status === 400 && /^AppId or tenantId not found|^cdi-version /.test(body.trim())) return true;
  return false;
}

/** 401: the api-key is missing or wrong. */
export class CoreAuthError extends CoreClientError {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly url: string,
    keyWasSent: boolean,
  ) {
    super(
      keyWasSent
        ? `the core at ${url} refused the api-key (HTTP 401 Invalid API key): the key given is wrong. ` +
            'Pass the key the core is configured with (its api_keys / API_KEYS) via --api-key or AUTH_MIGRATE_API_KEY.'
        : `the core at ${url} requires an api-key (HTTP 401 Invalid API key) and none was given. ` +
            'Pass it via --api-key or AUTH_MIGRATE_API_KEY.',
      true,
    );
    this.name = 'CoreAuthError';
  }
}

/** Paid feature a 402 names. */
export type LicensedFeature = 'mfa' | 'account_linking' | 'multi_tenancy' | 'unknown';

export function featureFrom402(body: string): LicensedFeature {
  if (/^MFA feature/i.test(body.trim())) return 'mfa';
  if (/account linking/i.test(body)) return 'account_linking';
  if (/multi_tenancy|multitenancy/i.test(body)) return 'multi_tenancy';
  return 'unknown';
}

const FEATURE_WORDS: Record<LicensedFeature, string> = {
  mfa: 'the MFA feature (needed for TOTP devices)',
  account_linking: 'the account linking feature (needed to make primary users and link login methods)',
  multi_tenancy: 'the multi-tenancy feature',
  unknown: 'a paid feature',
};

/** 402: the core's licence lacks the feature this call needs. */
export class CoreLicenseError extends CoreClientError {
  readonly feature: LicensedFeature;
  constructor(
    readonly body: string,
    readonly method: string,
    readonly path: string,
    readonly url: string,
  ) {
    const feature = featureFrom402(body);
    super(
      `the core at ${url} refused ${method} ${path} (HTTP 402): ${FEATURE_WORDS[feature]} is not enabled ` +
        `(core says: ${quoteBody(body)}). Set a licence key on the core that includes it ` +
        '(--license-key or AUTH_MIGRATE_LICENSE_KEY, or PUT /ee/license).',
      true,
    );
    this.feature = feature;
    this.name = 'CoreLicenseError';
  }
}

/** The core could not be reached (or kept answering 429/502/503/504) after every retry. */
export class CoreUnreachableError extends CoreClientError {
  constructor(
    readonly url: string,
    readonly method: string,
    readonly path: string,
    readonly attempts: number,
    /** Last reason, e.g. `ECONNREFUSED` or `HTTP 503`. */
    readonly reason: string,
  ) {
    super(
      // A certificate the machine does not trust is no outage: say so, and how to trust it.
      /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|certificate/i.test(reason)
        ? `the core at ${url} presented a certificate this machine does not trust (${reason}), so ${method} ${path} ` +
            'was not sent. Trust its CA with --ca FILE (PEM) or NODE_EXTRA_CA_CERTS=FILE, or check the URL (--core).'
        : `the core at ${url} is unreachable: ${method} ${path} failed ${attempts} time(s), last with ${reason}. ` +
            'Check that the core is running and the URL (--core) is right; rerunning resumes where this stopped.',
      true,
    );
    this.name = 'CoreUnreachableError';
  }
}

/** A core configuration problem that no retry will fix (the scrypt signer key is not set). */
export class CoreConfigError extends CoreClientError {
  constructor(
    readonly body: string,
    readonly method: string,
    readonly path: string,
    readonly url: string,
  ) {
    super(
      `the core at ${url} has no password-hashing signer key configured, so it cannot import or check ` +
        `external scrypt (Firebase) hashes (${method} ${path} answered HTTP 500: ${quoteBody(body)}). ` +
        'Start the core with the signer key of the export (external_password_hashing_signer_key / ' +
        'firebase_password_hashing_signer_key; for the sandbox: --signer-key or AUTH_MIGRATE_SIGNER_KEY).',
      true,
    );
    this.name = 'CoreConfigError';
  }
}

/** A 200 answer that is not what the interface promises (not JSON, or no `status`). */
export class CoreProtocolError extends CoreClientError {
  constructor(
    readonly method: string,
    readonly path: string,
    detail: string,
  ) {
    super(`the core answered ${method} ${path} with something unexpected: ${detail}. Is the URL a core speaking CDI?`, true);
    this.name = 'CoreProtocolError';
  }
}

/** The reference core's text for a missing scrypt signer key (either config name). */
export function isSignerKeyMissing(status: number, body: string): boolean {
  return status === 500 && /password_hashing_signer_key'? cannot be null/i.test(body);
}
