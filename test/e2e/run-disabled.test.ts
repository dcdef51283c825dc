// Disabled or blocked users (issue 10): left out by default and reported, so a blocked user never quietly regains
// access; `--disabled import` migrates them anyway. A Django bcrypt_sha256$ hash is refused, never stripped.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { allUsers, cli, client, summaryOf } from '../support/cli.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
let dir: string;
let sandbox: RunningSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-disabled-'));
  const users = [
    { id: 'on', email: 'on@example.test', password: { hash: BCRYPT } },
    { id: 'off', email: 'off@example.test', password: { hash: BCRYPT }, disabled: true },
  ];
  writeFileSync(join(dir, 'users.ndjson'), users.map((u) => JSON.stringify(u)).join('\n') + '\n');
  writeFileSync(
    join(dir, 'django.ndjson'),
    JSON.stringify({ id: 'dj', email: 'dj@example.test', password: { hash: `bcrypt_sha256$${BCRYPT}` } }) + '\n',
  );
  sandbox = await startSandbox({ store: join(dir, 'store.json') });
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const emails = async () => (await allUsers(client(sandbox.url))).flatMap((u) => u.emails).sort();

describe('disabled users', () => {
  it('are left out by default, reported as skipped with the reason; --disabled import migrates them', async () => {
    const dry = await cli(['run', 'users.ndjson', '--dry-run'], dir);
    expect(dry.stdout).toMatch(/user off: skipped \(disabled or blocked in the source/);
    const r = await cli(['run', 'users.ndjson', '--core', sandbox.url, '--yes', '--journal', 'j.ndjson', '--json'], dir);
    expect(r.exitCode).toBe(1);
    expect(summaryOf(r.stdout)).toMatchObject({ imported: 1, skipped: 1 });
    expect(await emails()).toEqual(['on@example.test']);
    const report = readFileSync(join(dir, 'j.report.ndjson'), 'utf8');
    expect(report).toMatch(/"id":"off","outcome":"skipped".*"status":"DISABLED"/);
    const all = await cli(
      ['run', 'users.ndjson', '--core', sandbox.url, '--yes', '--journal', 'j2.ndjson', '--disabled', 'import', '--json'],
      dir,
    );
    expect(all.exitCode, all.stderr).toBe(0);
    expect(await emails()).toEqual(['off@example.test', 'on@example.test']);
    expect((await cli(['run', 'users.ndjson', '--dry-run', '--disabled', 'maybe'], dir)).stderr).toContain('--disabled must be skip');
  });

  it('--disabled role:NAME migrates them with that role (created once), so the app can refuse them; verify checks it', async () => {
    const r = await cli(
      ['run', 'users.ndjson', '--core', sandbox.url, '--yes', '--journal', 'j3.ndjson', '--disabled', 'role:blocked', '--json'],
      dir,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const core = client(sandbox.url);
    const off = (await core.listUsersByAccountInfo({ email: 'off@example.test' })).users[0]!.id;
    const on = (await core.listUsersByAccountInfo({ email: 'on@example.test' })).users[0]!.id;
    expect((await core.getUserRoles(off)).roles).toEqual(['blocked']);
    expect((await core.getUserRoles(on)).roles).toEqual([]);
    const v = await cli(['verify', 'users.ndjson', '--core', sandbox.url, '--disabled', 'role:blocked', '--json'], dir);
    expect(v.exitCode, v.stdout).toBe(0);
    await core.raw({ method: 'POST', path: '/recipe/user/role/remove', scope: 'tenant', body: { userId: off, role: 'blocked' } });
    const v2 = await cli(['verify', 'users.ndjson', '--core', sandbox.url, '--disabled', 'role:blocked', '--json'], dir);
    expect(v2.exitCode).toBe(1);
    expect(v2.stdout).toContain('role \\"blocked\\" is missing');
    expect((await cli(['run', 'users.ndjson', '--dry-run', '--disabled', 'role:'], dir)).stderr).toContain('role:NAME');
    core.close();
  });

  it('a Django bcrypt_sha256$ hash is an error naming the record, never stripped and imported', async () => {
    const v = await cli(['validate', 'django.ndjson'], dir);
    expect(v.exitCode).toBe(1);
    expect(v.stdout + v.stderr).toMatch(
      /\(id dj\) password\.hash: the hash starts with `bcrypt_sha256\$`: Django's bcrypt_sha256 hashes bcrypt the SHA-256/,
    );
    expect(v.stdout).toContain('--unusable-hashes without-password');
    expect(v.stdout).not.toContain(BCRYPT);
  });
});
