// Shared helpers of `npm run test:core`: the suite that runs the migration against a real core named by
// AUTH_MIGRATE_TEST_CORE_URL (+ AUTH_MIGRATE_TEST_CORE_API_KEY): the reference SuperTokens core, or an operator's
// staging core (README, "Testing against a real core"). Without the URL every file skips, saying why. A core may
// be shared: every user a test makes carries a prefix of its own, and a test only looks at its own users.
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCoreClient } from '../../src/core-client/client.js';
import type { CoreClient } from '../../src/core-client/types.js';
import type { CanonicalUser } from '../../src/records/types.js';
import { cli, summaryOf } from './cli.js';
import { generateUsers, writeNdjson } from './users.js';

export { summaryOf } from './cli.js';

export const CORE_URL = process.env.AUTH_MIGRATE_TEST_CORE_URL;
export const CORE_API_KEY = process.env.AUTH_MIGRATE_TEST_CORE_API_KEY ?? '';

/** Says once, on stderr, why a file of the suite is skipped; true when it is. */
export function skippedWithoutCore(file: string): boolean {
  if (CORE_URL) return false;
  console.warn(
    `${file}: skipped: AUTH_MIGRATE_TEST_CORE_URL is not set (set it, and AUTH_MIGRATE_TEST_CORE_API_KEY, to run it against a core)`,
  );
  return true;
}

/** The core under test as the shared suites (test/support/signin*) take it: URL, key, and the key for the CLI's environment. */
export async function suiteTarget(): Promise<{ url: string; apiKey?: string; env: Record<string, string> }> {
  return {
    url: CORE_URL!,
    ...(CORE_API_KEY ? { apiKey: CORE_API_KEY } : {}),
    env: CORE_API_KEY ? { AUTH_MIGRATE_API_KEY: CORE_API_KEY } : {},
  };
}

/** A number from the environment (e.g. AUTH_MIGRATE_TEST_CORE_USERS), or the default. */
export function envNumber(name: string, fallback: number): number {
  const v = Number(process.env[name]);
  return Number.isInteger(v) && v > 0 ? v : fallback;
}

/** A client of the core under test, with retries for a core under contention. */
export function coreClient(): CoreClient {
  return createCoreClient({ url: CORE_URL!, apiKey: CORE_API_KEY, retry: { retries: 10, baseDelayMs: 100, maxDelayMs: 2000 } });
}

/** The paid features the core offers (`GET /ee/featureflag`): tests leave out what it cannot take. */
export async function coreFeatures(core: CoreClient): Promise<string[]> {
  return (await core.featureFlags()).features;
}

/** A prefix no other run on a shared core has (lower case: emails are compared normalised). */
export const runPrefix = (what: string): string => `${what}${randomBytes(4).toString('hex')}`;

/** A scratch folder for the run files, removed by the returned function. */
export function scratch(what: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `am-core-${what}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * `n` mixed users (the project's generator: bcrypt and Firebase scrypt passwords, Google logins, phone sign-in,
 * TOTP devices, one-time-code factors, external ids), with phone numbers of this run only, and without what the
 * core's licence does not offer (TOTP without `mfa`; second logins and factors without `account_linking`).
 */
export function mixedUsers(n: number, prefix: string, features: string[]): CanonicalUser[] {
  const phoneBase = randomInt(2_000_000, 9_000_000 - n);
  let phones = 0;
  const phoneOf = new Map<string, string>();
  const phone = (old: string) => phoneOf.get(old) ?? phoneOf.set(old, `+1415${phoneBase + phones++}`).get(old)!;
  return generateUsers(n, { prefix }).users.map((u) => {
    const out: CanonicalUser = { ...u };
    if (u.phoneNumber) out.phoneNumber = phone(u.phoneNumber);
    if (u.otpFactors) {
      out.otpFactors = { ...u.otpFactors };
      if (u.otpFactors.phoneNumber) out.otpFactors.phoneNumber = phone(u.otpFactors.phoneNumber);
    }
    if (!features.includes('mfa')) delete out.totp;
    if (!features.includes('account_linking')) {
      delete out.otpFactors;
      if (out.password || out.phoneNumber) delete out.thirdParty;
    }
    return out;
  });
}

export interface Migration {
  dir: string;
  file: string;
  journal: string;
  /** `run` with the target, journal and `--json`, plus `args`. */
  run(args?: string[]): ReturnType<typeof cli>;
  /** `verify` of the same users with `--json`: its summary and the users that are not ok. */
  verify(): Promise<{
    exitCode: number | undefined;
    summary: Record<string, unknown>;
    problems: Array<{ id: string; differences: string[] }>;
  }>;
}

/** The users in a file of `dir`, and the commands that migrate and verify them against the core under test. */
export function migration(dir: string, name: string, users: CanonicalUser[]): Migration {
  const file = join(dir, `${name}.ndjson`);
  const journal = join(dir, `${name}.journal.ndjson`);
  writeNdjson(file, users);
  const env = { AUTH_MIGRATE_API_KEY: CORE_API_KEY };
  return {
    dir,
    file,
    journal,
    run: (args = []) => cli(['run', file, '--core', CORE_URL!, '--yes', '--journal', journal, '--json', ...args], dir, env),
    async verify() {
      const v = await cli(['verify', file, '--core', CORE_URL!, '--journal', journal, '--json'], dir, env);
      const summary = summaryOf(v.stdout);
      return { exitCode: v.exitCode, summary, problems: (summary.problems ?? []) as Array<{ id: string; differences: string[] }> };
    },
  };
}

/** The one-line JSON summary of a finished `run --json`. */
export const runSummary = (stdout: string) => summaryOf(stdout);
