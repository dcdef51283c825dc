// End to end on the project's fixtures: every valid set is migrated into its own spawned sandbox
// (`run --sandbox`), then `verify` passes with the documented passwords and TOTP codes from the secrets.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, LICENSE, summaryOf } from '../support/cli.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

interface FixtureSet {
  name: string;
  files: string[];
  hashConfig?: string;
  needsSignerKey?: boolean;
  valid: boolean;
}

const sets = JSON.parse(readFileSync(join(FIXTURES, 'sets.json'), 'utf8')) as FixtureSet[];
const readme = readFileSync(join(FIXTURES, 'README.md'), 'utf8');
const signerKey = /base64_signer_key\s+(\S+)/.exec(readme)![1]!;

/** email -> password from the README table of a set (following "the same as in [other]"). */
function passwordsOf(name: string): Array<[string, string]> {
  const section = readme.split(/^### /m).find((s) => s.startsWith(`${name}\n`)) ?? '';
  const same = /the same as in \[([\w-]+)\]/.exec(section);
  if (same && !section.includes('| id |')) return passwordsOf(same[1]!);
  const rows: Array<[string, string]> = [];
  for (const line of section.split('\n')) {
    // | `id` (may hold "|") | email | `password` | hash | ...
    const m = /^\|\s*`[^`]*`\s*\|\s*(\S+@\S+)\s*\|\s*`([^`]+)`\s*\|/.exec(line);
    if (m) rows.push([m[1]!, m[2]!]);
  }
  return rows;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-fix-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('every valid fixture set migrates into a sandbox and verifies', () => {
  for (const set of sets.filter((s) => s.valid)) {
    it(set.name, async () => {
      const files = set.files.map((f) => resolve(FIXTURES, f));
      // Every user of a fixture set is migrated, the disabled one of firebase-warnings included.
      // Users whose hash the core cannot take (a Keycloak pbkdf2 password) are imported without it.
      const common = [
        ...files,
        '--sandbox',
        '--store',
        `${set.name}.store.json`,
        '--disabled',
        'import',
        '--unusable-hashes',
        'without-password',
      ];
      if (set.hashConfig) common.push('--hash-config', resolve(FIXTURES, set.hashConfig));
      // With a hash config, the sandbox gets the signer key from it; otherwise from the environment.
      const env: Record<string, string> = set.hashConfig
        ? { AUTH_MIGRATE_LICENSE_KEY: LICENSE }
        : { AUTH_MIGRATE_LICENSE_KEY: LICENSE, AUTH_MIGRATE_SIGNER_KEY: signerKey };
      const run = await cli(['run', ...common, '--json'], dir, env);
      expect(run.exitCode, run.stderr).toBe(0);
      const s = summaryOf(run.stdout);
      expect(s.total).toBeGreaterThan(0);
      expect(s).toMatchObject({ failed: 0, skipped: 0, alreadyPresent: 0 });
      expect(s.imported).toBe(s.total);
      expect(run.stderr).not.toContain(signerKey);

      const passwords = passwordsOf(set.name);
      const creds = join(dir, `${set.name}.creds.csv`);
      writeFileSync(creds, passwords.map(([e, p]) => `${e},${p}`).join('\n') + '\n');
      const verify = await cli(['verify', ...common, '--credentials', creds, '--json'], dir, env);
      expect(verify.exitCode, verify.stdout + verify.stderr).toBe(0);
      const v = summaryOf(verify.stdout) as {
        ok: number;
        total: number;
        totpCodesChecked: boolean;
        credentials: { checked: number; ok: number };
      };
      expect(v.ok).toBe(s.total);
      expect(v.totpCodesChecked).toBe(true);
      expect(v.credentials).toMatchObject({ checked: passwords.length, ok: passwords.length });
    });
  }

  it('the README lists passwords for the sets with password users', () => {
    expect(passwordsOf('canonical').length).toBeGreaterThanOrEqual(4);
    expect(passwordsOf('firebase').length).toBeGreaterThanOrEqual(3);
    expect(passwordsOf('auth0').length).toBe(2);
  });
});
