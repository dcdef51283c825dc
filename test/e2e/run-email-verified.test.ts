// End to end: the source's verified-email state reaches the core for email-password users (with and without
// an external id, and the record email added to a phone sign-in user); unverified stays unverified; reruns
// are "already present"; verify notices when the core's state differs; the journal holds no token.
import { decodeJournalLine } from '../../src/engine/journal/lines.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreClient, CoreUser } from '../../src/core-client/types.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { cli, client, LICENSE, summaryOf } from '../support/cli.js';
import { writeNdjson } from '../support/users.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
const API_KEY = 'e2e-ev-api-key-0123456789abcdef';
const users = [
  { id: 'v1', email: 'Verified@Example.test', emailVerified: true, password: { hash: BCRYPT } },
  { id: 'v2', email: 'mapped@example.test', emailVerified: true, externalUserId: 'ext-v2', password: { hash: BCRYPT } },
  { id: 'n1', email: 'unverified@example.test', emailVerified: false, password: { hash: BCRYPT } },
  { id: 'u1', email: 'unknown@example.test', password: { hash: BCRYPT } },
  {
    id: 'p1',
    email: 'phone@example.test',
    emailVerified: true,
    phoneNumber: '+14155550123',
    otpFactors: { email: 'phone@example.test', phoneNumber: '+14155550123' },
  },
];

let dir: string;
let sandbox: RunningSandbox;
let core: CoreClient;
const env = { AUTH_MIGRATE_API_KEY: API_KEY };
const target = () => ['--core', sandbox.url];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-ev-'));
  writeNdjson(join(dir, 'users.ndjson'), users as never);
  sandbox = await startSandbox({ store: join(dir, 'store.json'), apiKeys: [API_KEY], licenseKey: LICENSE });
  core = client(sandbox.url, API_KEY);
});
afterAll(async () => {
  core?.close();
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function userByEmail(email: string): Promise<CoreUser> {
  const found = (await core.listUsers({ email: [email] })).users;
  const u = found.find((x) => x.emails.includes(email));
  if (!u) throw new Error(`no user with ${email}`);
  const r = await core.getUserById(u.id);
  if (r.status !== 'OK') throw new Error(r.status);
  return r.user;
}
const methodOf = (u: CoreUser, recipeId: string) => u.loginMethods.find((m) => m.recipeId === recipeId)!;

describe('verified emails', () => {
  it('dry run counts the two calls of each verify-email step', async () => {
    const r = await cli(['run', 'users.ndjson', '--dry-run'], dir);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^user v1: 2 steps, 4 calls$/m);
    expect(r.stdout).toMatch(/^user n1: 1 step, 2 calls$/m);
    expect(r.stdout).toContain('mark verified@example.test verified on the password user (verified in the source)');
    expect(r.stdout).toMatch(/^user p1: 3 steps, 7 calls$/m);
    expect(r.stdout).toContain('dry run: 5 users to migrate in 20 calls (10 steps)');
  });

  it('run carries them over; GET /user/id shows verified accordingly; reruns are already present', async () => {
    const first = await cli(['run', 'users.ndjson', ...target(), '--yes', '--json'], dir, env);
    expect(first.exitCode, first.stderr).toBe(0);
    const s = summaryOf(first.stdout);
    expect(s).toMatchObject({ total: 5, imported: 5, failed: 0 });

    expect(methodOf(await userByEmail('verified@example.test'), 'emailpassword')).toMatchObject({
      email: 'verified@example.test',
      verified: true,
    });
    const mapped = await core.getUserById('ext-v2');
    expect(mapped.status === 'OK' && methodOf(mapped.user, 'emailpassword')).toMatchObject({ recipeUserId: 'ext-v2', verified: true });
    expect(methodOf(await userByEmail('unverified@example.test'), 'emailpassword').verified).toBe(false);
    expect(methodOf(await userByEmail('unknown@example.test'), 'emailpassword').verified).toBe(false);
    const phone = methodOf(await userByEmail('phone@example.test'), 'passwordless');
    expect(phone).toMatchObject({ email: 'phone@example.test', phoneNumber: '+14155550123', verified: true });

    // The journal records the step with no ids (the token is never written).
    const lines = readFileSync(s.journal as string, 'utf8')
      .trim()
      .split('\n')
      .flatMap((l) => decodeJournalLine(l) as unknown as Array<Record<string, unknown>>);
    const evSteps = lines.filter((l) => l.type === 'step' && String(l.step).startsWith('verify-email:'));
    expect(evSteps.map((l) => `${l.user} ${l.step} ${l.result}`).sort()).toEqual([
      'p1 verify-email:phone created',
      'v1 verify-email:password created',
      'v2 verify-email:password created',
    ]);
    for (const l of evSteps) expect(l.ids).toEqual({});

    const verify = await cli(['verify', 'users.ndjson', ...target(), '--json'], dir, env);
    expect(verify.exitCode, verify.stdout + verify.stderr).toBe(0);
    expect(summaryOf(verify.stdout)).toMatchObject({ total: 5, ok: 5, mismatch: 0 });

    const fresh = await cli(['run', 'users.ndjson', ...target(), '--yes', '--journal', 'fresh.journal.ndjson', '--json'], dir, env);
    expect(fresh.exitCode, fresh.stderr).toBe(0);
    expect(summaryOf(fresh.stdout)).toMatchObject({ total: 5, imported: 0, alreadyPresent: 5, failed: 0 });
    const again = readFileSync(join(dir, 'fresh.journal.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .flatMap((l) => decodeJournalLine(l));
    const results = again.flatMap((e) => (e.type === 'step' ? [`${e.step} ${e.result}`] : []));
    expect(results).toContain('verify-email:password already');
    expect(results.filter((r) => r.endsWith(' created'))).toEqual([]);
  });

  it('verify reports a verified state that differs from the source, both ways', async () => {
    const v1 = await userByEmail('verified@example.test');
    const unverify = await core.raw({
      method: 'POST',
      path: '/recipe/user/email/verify/remove',
      scope: 'app',
      body: { userId: v1.id, email: 'verified@example.test' },
    });
    expect(unverify.status).toBe(200);
    const n1 = await userByEmail('unverified@example.test');
    const t = await core.createEmailVerificationToken(n1.id, 'unverified@example.test');
    if (t.status !== 'OK') throw new Error(t.status);
    expect((await core.verifyEmailToken(t.token)).status).toBe('OK');

    const r = await cli(['verify', 'users.ndjson', ...target(), '--json'], dir, env);
    expect(r.exitCode).toBe(1);
    const v = summaryOf(r.stdout) as { mismatch: number; problems: Array<{ id: string; differences: string[] }> };
    expect(v.mismatch).toBe(2);
    expect(v.problems.find((p) => p.id === 'v1')!.differences).toEqual([
      'verified@example.test is not verified on the emailpassword login method (the source says it is verified)',
    ]);
    expect(v.problems.find((p) => p.id === 'n1')!.differences).toEqual([
      'unverified@example.test is verified on the emailpassword login method (the source says it is not)',
    ]);

    // A run with a fresh journal puts v1's verification back (created again), and leaves the rest as they are.
    const fix = await cli(['run', 'users.ndjson', ...target(), '--yes', '--journal', 'fix.journal.ndjson', '--json'], dir, env);
    expect(fix.exitCode, fix.stderr).toBe(0);
    expect(summaryOf(fix.stdout)).toMatchObject({ imported: 1, alreadyPresent: 4 });
    expect(methodOf(await userByEmail('verified@example.test'), 'emailpassword').verified).toBe(true);
  });
});
