// The run's two policies for users the core cannot take as they are, parsed once for the headless commands and
// the wizard alike: `--disabled skip|import|role:NAME` and `--unusable-hashes skip|without-password|migrate-at-sign-in`.
// Invariant: an unknown policy value is refused as an InvalidSetting naming the option, never taken as a default.
import { InvalidSetting } from '../../errors.js';
import { UNUSABLE_HASH_POLICIES, type UnusableHashPolicy } from '../../records/legacy-rules.js';
import type { DisabledPolicy } from './plan.js';

export type { UnusableHashPolicy } from '../../records/legacy-rules.js';

const ROLE_NAME = /^[^\s,][^,]{0,99}$/;

/** `skip` (default), `import`, or `role:NAME` (imported, and given that role so the app can refuse them). */
export function parseDisabledPolicy(value: string | undefined): DisabledPolicy {
  if (value === undefined || value === 'skip') return 'skip';
  if (value === 'import') return 'import';
  if (value.startsWith('role:')) {
    const role = value.slice(5).trim();
    if (ROLE_NAME.test(role)) return { role };
  }
  throw new InvalidSetting(
    'disabled',
    `must be skip (the default: disabled or blocked users are left out), import, or role:NAME (imported and given the role NAME, so the app can refuse them) (got "${value.slice(0, 60)}")`,
  );
}

export function disabledPolicyText(policy: DisabledPolicy | undefined): string {
  if (policy === undefined || policy === 'skip') return 'skip';
  return policy === 'import' ? 'import' : `role:${policy.role}`;
}

/**
 * `skip` (default: such users are left out and listed), `without-password` (the rest of them imported) or
 * `migrate-at-sign-in` (imported with an unusable password; the hash waits in the core for the app's sign-in part).
 */
export function parseUnusableHashPolicy(value: string | undefined): UnusableHashPolicy {
  if (value === undefined) return 'skip';
  if ((UNUSABLE_HASH_POLICIES as readonly string[]).includes(value)) return value as UnusableHashPolicy;
  throw new InvalidSetting(
    'unusable-hashes',
    `must be skip (the default: users whose password hash the core cannot take are left out), without-password (their other sign-in methods, factors and profile are imported; the hash goes to the sign-in migration file) or migrate-at-sign-in (imported whole with a placeholder password; the hash waits in the core until the app's sign-in part, the package auth-migrate-signin, checks it at first sign-in) (got "${value.slice(0, 60)}")`,
  );
}
