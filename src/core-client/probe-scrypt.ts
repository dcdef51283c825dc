// Learns, without writing, which hashingAlgorithm name the target takes for the external scrypt variant and
// whether it holds the scrypt signer key. The reference core checks the name first (400 "Unsupported password
// hashing algorithm"), then the signer key (500 "'firebase_password_hashing_signer_key' cannot be null"), then
// the hash format (400 "Password hash is in invalid Firebase SCrypt format"); core-api.md §5.2, §5.3 and
// ImportUserWithPasswordHashAPITest. The probe sends a hash that can never parse, so no user is ever created.
import { CoreConfigError, CoreHttpError } from './errors.js';
import type { CoreClient } from './types.js';

/** Names tried in this order: the mission's name first, then the reference core's. */
export const SCRYPT_ALGORITHM_NAMES = ['external_scrypt', 'firebase_scrypt'] as const;

/** An address in a reserved domain (RFC 2606), so even a core that skipped the format check holds no real person. */
export const PROBE_EMAIL = 'preflight-probe@auth-migrate.invalid';
/** `$f_scrypt$` with too few parts: never a valid 7-part string. */
export const PROBE_HASH = '$f_scrypt$auth-migrate-preflight-probe';

export type ScryptProbe =
  | { kind: 'accepted'; name: string; signerKey: boolean }
  | { kind: 'unsupported'; tried: string[] }
  /** The core answered something this probe does not know; the message quotes it. */
  | { kind: 'unknown'; message: string }
  /** The core created the probe user: it does not check the hash format (the name is accepted). */
  | { kind: 'created'; name: string };

/** Probe the names in order (or only `only`, an operator's override) and report the first the core takes. */
export async function probeScrypt(client: CoreClient, only?: string): Promise<ScryptProbe> {
  const names = only ? [only] : [...SCRYPT_ALGORITHM_NAMES];
  const tried: string[] = [];
  for (const name of names) {
    tried.push(name);
    try {
      await client.importPasswordHash({ email: PROBE_EMAIL, passwordHash: PROBE_HASH, hashingAlgorithm: name });
      return { kind: 'created', name };
    } catch (err) {
      if (err instanceof CoreConfigError) return { kind: 'accepted', name, signerKey: false };
      if (err instanceof CoreHttpError && err.status === 400) {
        const body = err.body.trim();
        if (/^Unsupported password hashing algorithm/.test(body)) continue;
        if (/^Password hash is in invalid/.test(body)) return { kind: 'accepted', name, signerKey: true };
      }
      if (err instanceof CoreHttpError && !err.fatal) return { kind: 'unknown', message: err.message };
      throw err;
    }
  }
  return { kind: 'unsupported', tried };
}
