// End to end: verify tells a refused credential, a user not linked as planned and bad usage apart.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { cli, client, LICENSE, summaryOf } from '../support/cli.js';
import { generateUsers, SCRYPT_SIGNER_KEY, writeNdjson } from '../support/users.js';

let dir: string;
let sandbox: RunningSandbox;
const set = generateUsers(15, { prefix: 'v' });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-verify-'));
  writeNdjson(join(dir, 'users.ndjson'), set.users);
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE, signerKey: SCRYPT_SIGNER_KEY });
  const r = await cli(['run', 'users.ndjson', '--core', sandbox.url, '--yes', '--json'], dir);
  expect(r.exitCode, r.stderr).toBe(0);
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('verify', () => {
  it('a wrong password in --credentials is reported and makes the exit 1, without printing the password', async () => {
    const [email, password] = [...set.passwords][0]!;
    writeFileSync(join(dir, 'creds.csv'), `# spot checks\n${email},${password}\n${email},wrong-${password}\n`);
    const r = await cli(['verify', 'users.ndjson', '--core', sandbox.url, '--credentials', 'creds.csv'], dir);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`credentials line 3: ${email} did not sign in (WRONG_CREDENTIALS_ERROR)`);
    expect(r.stderr).toMatch(/credentials 1\/2 signed in/);
    expect(r.stderr + r.stdout).not.toContain(password);
  });

  it('a credentials line for an email no source record has is said so and not tried', async () => {
    const [email, password] = [...set.passwords][0]!;
    writeFileSync(join(dir, 'stranger.csv'), `${email},${password}\nstranger@example.test,whatever-1\n`);
    const r = await cli(['verify', 'users.ndjson', '--core', sandbox.url, '--credentials', 'stranger.csv', '--json'], dir);
    expect(r.exitCode).toBe(1);
    const out = JSON.parse(r.stdout) as { credentials: { checked: number; ok: number; failed: Array<{ email: string; status: string }> } };
    expect(out.credentials).toEqual({ checked: 2, ok: 1, failed: [{ email: 'stranger@example.test', status: 'NOT_IN_SOURCE' }] });
    const plain = await cli(['verify', 'users.ndjson', '--core', sandbox.url, '--credentials', 'stranger.csv'], dir);
    expect(plain.stderr).toContain('credentials line 2: stranger@example.test is not a user of the source files (not tried)');
  });

  it('a user whose links were planned but whose login methods are apart is a mismatch', async () => {
    // A record the core holds only in part: a second first factor that was never imported.
    const u = set.users.find((x) => x.externalUserId && x.password && !x.thirdParty)!;
    const changed = set.users.map((x) => (x === u ? { ...x, thirdParty: [{ providerId: 'github', userId: 'never-imported' }] } : x));
    writeNdjson(join(dir, 'changed.ndjson'), changed);
    const r = await cli(['verify', 'changed.ndjson', '--core', sandbox.url, '--json'], dir);
    expect(r.exitCode).toBe(1);
    const v = summaryOf(r.stdout) as { mismatch: number; problems: Array<{ id: string; differences: string[] }> };
    expect(v.mismatch).toBe(1);
    expect(v.problems[0]!.id).toBe(u.id);
    expect(v.problems[0]!.differences).toEqual(
      expect.arrayContaining([
        `github login never-imported is not a login method of ${u.externalUserId}`,
        `${u.externalUserId} is not a primary user`,
      ]),
    );
    expect((await client(sandbox.url).getUserById(u.externalUserId!)).status).toBe('OK');
  });

  it('bad usage exits 2', async () => {
    writeFileSync(join(dir, 'bad.csv'), 'no-comma-here\n');
    const bad = await cli(['verify', 'users.ndjson', '--core', sandbox.url, '--credentials', 'bad.csv'], dir);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/--credentials bad\.csv: line 1: expected "email,password"/);
    const noJournal = await cli(['verify', 'users.ndjson', '--core', sandbox.url, '--journal', 'nope.ndjson'], dir);
    expect(noJournal.exitCode).toBe(2);
    expect(noJournal.stderr).toMatch(/--journal nope\.ndjson does not exist/);
  });
});
