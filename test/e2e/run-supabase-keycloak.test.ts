// End to end for the Supabase and Keycloak readers: their fixture exports run into a real sandbox core; users
// sign in with the fixtures' passwords, TOTP codes computed here from the secrets as the source stores them
// verify, metadata and roles sit under the source's id (kept with --keep-source-ids), a rerun changes nothing, and
// Keycloak's pbkdf2 users are left out by default and, with --unusable-hashes without-password, imported without
// a password and listed in the sign-in migration file, whose hash checks the known password.
import { createHmac, pbkdf2Sync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import base32 from 'hi-base32';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { cli, client, LICENSE, summaryOf } from '../support/cli.js';

const ENV = { AUTH_MIGRATE_LICENSE_KEY: LICENSE };

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const fx = (p: string): string => join(FIXTURES, p);
const SUPABASE = ['supabase/users.csv', 'supabase/identities.csv', 'supabase/mfa_factors.csv'].map(fx);
const KEYCLOAK_SPLIT = ['keycloak/acme-users-0.json', 'keycloak/acme-users-1.json'].map(fx);
const readme = readFileSync(fx('README.md'), 'utf8');
const HASH_CONFIG = ['--hash-config', fx('firebase/hash-config.txt')];
const HASH_CONFIG_SIGNER_KEY = /base64_signer_key\s+(\S+)/.exec(readme)![1]!;

/** RFC 6238 (HMAC-SHA1, 6 digits, 30 s) written out here, independent of the workbench's own code. */
function totp(key: Buffer, now = Date.now()): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(now / 30_000)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

/** The CSV cell of `column` in the row of `file` whose `key` column is `value` (simple rows: no quoted commas). */
function cell(file: string, key: string, value: string, column: string): string {
  const [header, ...rows] = readFileSync(file, 'utf8').trim().split('\n');
  const names = header!.split(',');
  const row = rows.map((r) => r.split(',')).find((r) => r[names.indexOf(key)] === value)!;
  return row[names.indexOf(column)]!;
}

const passwordOf = (email: string): string => new RegExp(`\\| ${email.replace('.', '\\.')} \\| \`([^\`]+)\``).exec(readme)![1]!;

let dir: string;
let sandbox: RunningSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-sbkc-'));
  // The Firebase project's signer key: the core's configuration for Firebase scrypt hashes (fay's $fbscrypt$).
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE, signerKey: HASH_CONFIG_SIGNER_KEY });
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('Supabase and Keycloak exports into the sandbox', () => {
  it('Supabase: passwords sign in, the TOTP secret verifies, metadata and roles under the Supabase id (--keep-source-ids); a rerun changes nothing', async () => {
    const run = await cli(
      [
        'run',
        ...SUPABASE,
        ...HASH_CONFIG,
        '--core',
        sandbox.url,
        '--yes',
        '--keep-source-ids',
        '--journal',
        'sb.ndjson',
        '--disabled',
        'import',
        '--json',
      ],
      dir,
      ENV,
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(summaryOf(run.stdout)).toMatchObject({ total: 6, imported: 6, failed: 0, skipped: 0 });
    const core = client(sandbox.url);
    // fay was imported into Supabase from Firebase: her $fbscrypt$ digest, converted, signs in with her password.
    expect((await core.signIn('fay.sb@example.com', passwordOf('fay.sb@example.com'))).status).toBe('OK');
    expect((await core.signIn('fay.sb@example.com', `${passwordOf('fay.sb@example.com')}x`)).status).toBe('WRONG_CREDENTIALS_ERROR');
    const fayId = cell(fx('supabase/users.csv'), 'email', 'fay.sb@example.com', 'id');
    const faySecret = cell(fx('supabase/mfa_factors.csv'), 'user_id', fayId, 'secret');
    expect((await core.verifyTotp(fayId, totp(Buffer.from(base32.decode.asBytes(faySecret))))).status).toBe('OK');
    const adaId = cell(fx('supabase/users.csv'), 'email', 'ada.sb@example.com', 'id');
    const signIn = await core.signIn('ada.sb@example.com', passwordOf('ada.sb@example.com'));
    expect(signIn.status).toBe('OK');
    expect((await core.signIn('ada.sb@example.com', 'not-the-password')).status).toBe('WRONG_CREDENTIALS_ERROR');
    expect((await core.signIn('ed.sb@example.com', passwordOf('ed.sb@example.com'))).status).toBe('OK');
    // The TOTP factor's secret as auth.mfa_factors holds it (base32), its code computed here.
    const secret = cell(fx('supabase/mfa_factors.csv'), 'friendly_name', 'Ada phone', 'secret');
    const code = totp(Buffer.from(base32.decode.asBytes(secret)));
    expect((await core.verifyTotp(adaId, code)).status).toBe('OK');
    expect((await core.getUserMetadata(adaId)).metadata).toEqual({
      user_metadata: { full_name: 'Ada Lovelace', plan: 'pro' },
      app_metadata: { provider: 'email', providers: ['email'], roles: ['admin', 'editor'] },
    });
    expect((await core.getUserRoles(adaId)).roles.sort()).toEqual(['admin', 'editor']);
    const again = await cli(
      [
        'run',
        ...SUPABASE,
        ...HASH_CONFIG,
        '--core',
        sandbox.url,
        '--yes',
        '--keep-source-ids',
        '--journal',
        'sb2.ndjson',
        '--disabled',
        'import',
        '--json',
      ],
      dir,
      ENV,
    );
    expect(summaryOf(again.stdout)).toMatchObject({ imported: 0, alreadyPresent: 6, failed: 0 });
    core.close();
  });

  it('Keycloak: the argon2 password signs in, otp secrets verify, roles without the defaults; pbkdf2 users wait for --unusable-hashes', async () => {
    const run = await cli(
      [
        'run',
        ...KEYCLOAK_SPLIT,
        '--core',
        sandbox.url,
        '--yes',
        '--keep-source-ids',
        '--unusable-hashes',
        'skip',
        '--journal',
        'kc.ndjson',
        '--json',
      ],
      dir,
      ENV,
    );
    // Skipped (chosen: without --unusable-hashes the run is refused), the two pbkdf2 users and the disabled one are left out.
    expect(run.exitCode).toBe(1);
    expect(summaryOf(run.stdout)).toMatchObject({ total: 5, imported: 2, failed: 0, skipped: 3 });
    const report = readFileSync(join(dir, 'kc.report.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; outcome: string; status?: string });
    type KcUser = { id: string; username: string; credentials?: Array<{ type: string; secretData: string }> };
    const users = (f: string): KcUser[] => (JSON.parse(readFileSync(fx(f), 'utf8')) as { users: KcUser[] }).users;
    const [ann, ben, cy] = users('keycloak/realm-export.json');
    const [, dee, eve] = users('keycloak/acme-users-1.json');
    expect(report.find((r) => r.id === cy!.id)).toMatchObject({ outcome: 'skipped', status: 'DISABLED' });
    expect(report.filter((r) => r.id === dee!.id || r.id === eve!.id).map((r) => r.status)).toEqual([
      'password.unusable',
      'password.unusable',
    ]);
    const core = client(sandbox.url);
    expect((await core.signIn('ann.kc@example.com', passwordOf('ann.kc@example.com'))).status).toBe('OK');
    // Keycloak keys the HMAC with the UTF-8 bytes of the secret text (ann) or the base32 value (ben, secretEncoding).
    const otpValue = (u: KcUser | undefined): string =>
      (JSON.parse(u!.credentials!.find((c) => c.type === 'otp')!.secretData) as { value: string }).value;
    expect((await core.verifyTotp(ann!.id, totp(Buffer.from(otpValue(ann), 'utf8')))).status).toBe('OK');
    expect((await core.verifyTotp(ben!.id, totp(Buffer.from(base32.decode.asBytes(otpValue(ben)))))).status).toBe('OK');
    // Client roles as <clientId>:<role> (not those of Keycloak's own account client), groups as group:<path>.
    expect((await core.getUserRoles(ann!.id)).roles.sort()).toEqual(['acme-web:billing', 'admin', 'group:/staff']);
    expect((await core.getUserMetadata(ann!.id)).metadata).toMatchObject({ username: 'ann', firstName: 'Ann', lastName: 'Kay' });

    // without-password: eve comes in with her Microsoft login and TOTP; dee (password only) is listed, not created;
    // both pbkdf2 hashes go to the sign-in migration file, where the app's check of the known password succeeds.
    const wp = await cli(
      [
        'run',
        ...KEYCLOAK_SPLIT,
        '--core',
        sandbox.url,
        '--yes',
        '--keep-source-ids',
        '--unusable-hashes',
        'without-password',
        '--disabled',
        'import',
        '--journal',
        'kc-wp.ndjson',
        '--json',
      ],
      dir,
      ENV,
    );
    expect(summaryOf(wp.stdout)).toMatchObject({ total: 5, imported: 2, alreadyPresent: 2, failed: 0, skipped: 1 });
    const lines = readFileSync(join(dir, 'kc-wp.signin-migration.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            sourceId: string;
            userId?: string;
            outcome: string;
            algorithm: string;
            hash: string;
            salt: string;
            params: { iterations: number };
          },
      );
    const byId = new Map(lines.map((l) => [l.sourceId, l]));
    expect(byId.get(dee!.id)).toMatchObject({ outcome: 'skipped', reason: 'SIGN_IN_MIGRATION', algorithm: 'pbkdf2-sha256' });
    expect(byId.get(dee!.id)!.userId).toBeUndefined();
    const eveLine = byId.get(eve!.id)!;
    expect(eveLine).toMatchObject({ outcome: 'imported', userId: eve!.id, algorithm: 'pbkdf2-sha512', params: { iterations: 210000 } });
    const evePw = /legacy pbkdf2-sha512 \(210000 iterations\) password `([^`]+)`/.exec(readme)![1]!;
    const derived = pbkdf2Sync(evePw, Buffer.from(eveLine.salt, 'base64'), eveLine.params.iterations, 64, 'sha512').toString('base64');
    expect(derived).toBe(eveLine.hash);
    expect((await core.verifyTotp(eve!.id, totp(Buffer.from(otpValue(eve), 'utf8')))).status).toBe('OK');
    core.close();

    // validate names each pbkdf2 hash with the option, and what was carried and dropped.
    const v = await cli(['validate', ...KEYCLOAK_SPLIT, '--json'], dir);
    const out = JSON.parse(v.stdout) as {
      problems: Array<{ rule: string; sourceId?: string; message: string }>;
      summary: { fields: { mapped: Array<{ field: string; to: string }>; dropped: Array<{ field: string; reason: string }> } };
    };
    const unusable = out.problems.filter((p) => p.rule === 'password.unusable');
    expect(unusable.map((p) => p.sourceId)).toEqual([dee!.id, eve!.id]);
    for (const p of unusable) expect(p.message).toMatch(/--unusable-hashes without-password/);
    expect(out.summary.fields.mapped.find((e) => e.field === 'credentials (password, pbkdf2-sha512)')?.to).toMatch(/^legacyPassword/);
    expect(out.summary.fields.dropped.map((e) => e.field)).toEqual(
      expect.arrayContaining(['clientRoles.account', 'realmRoles (default-roles-<realm>, offline_access, uma_authorization)']),
    );
    expect(v.stdout).not.toMatch(/secretData|"salt"/);
    expect(v.stdout).not.toContain(eveLine.hash);
  });

  it('validate --json on the Supabase fixtures lists what was mapped, what was dropped and why', async () => {
    const v = await cli(['validate', ...SUPABASE, ...HASH_CONFIG, '--json'], dir);
    expect(v.exitCode, v.stdout).toBe(0);
    const fields = (JSON.parse(v.stdout) as { summary: { fields: { mapped: unknown[]; dropped: Array<Record<string, unknown>> } } }).summary
      .fields;
    expect(fields.mapped.length).toBeGreaterThan(10);
    expect(fields.dropped).toContainEqual({
      format: 'supabase',
      field: 'users.last_sign_in_at',
      reason: 'the core keeps no last sign-in time',
      records: 6,
    });
  });
});
