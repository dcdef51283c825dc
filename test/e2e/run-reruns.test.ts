// Reruns never revive the past, and policies follow the user (issue 20, points 5 and 13), with the built CLI and the
// real sandbox: a user disabled in a newer export is reported as still able to sign in (or given the policy's role
// on a resumed journal); --update-existing counts what it replaced, also on a resumed journal; a profile's
// updateExisting and keepSourceIds can be turned off with --no-...; validate says what run will do with a disabled
// user; the sign-in migration file carries the disabled policy and its role.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveProfile } from '../../src/profiles/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { cli, client, summaryOf } from '../support/cli.js';

const OLD = bcrypt.hashSync('old-Secret-1', 4);
const NEW = bcrypt.hashSync('new-Secret-2', 4);
let dir: string;
let sandbox: RunningSandbox;
const write = (name: string, users: object[]) => writeFileSync(join(dir, name), users.map((u) => JSON.stringify(u)).join('\n') + '\n');
const lines = (name: string) =>
  readFileSync(join(dir, name), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-reruns-'));
  sandbox = await startSandbox({ store: join(dir, 'store.json') });
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const run = (args: string[], env: Record<string, string> = {}) => cli(['run', ...args, '--core', sandbox.url, '--yes', '--json'], dir, env);
const signIn = async (email: string, password: string) => (await client(sandbox.url).signIn(email, password)).status;

describe('reruns never revive the past', () => {
  it('a user disabled in a newer export: reported as still active with skip, given the role on the resumed journal', async () => {
    const u = { id: 'd1', email: 'd1@example.test', password: { hash: OLD } };
    write('d-v1.ndjson', [u]);
    expect((await run(['d-v1.ndjson', '--journal', 'd.ndjson'])).exitCode).toBe(0);
    // The newer export says d1 is disabled now. Same journal and a fresh one alike: not "not migrated".
    write('d-v1.ndjson', [{ ...u, disabled: true }]);
    for (const journal of ['d.ndjson', 'd-fresh.ndjson']) {
      const r = await run(['d-v1.ndjson', '--journal', journal]);
      expect(summaryOf(r.stdout)).toMatchObject({ skipped: 1 });
      const line = lines(journal.replace('.ndjson', '.report.ndjson')).at(-1)!;
      expect(line).toMatchObject({ id: 'd1', outcome: 'skipped', status: 'DISABLED_STILL_ACTIVE' });
      expect(line.message).toMatch(/can still sign in/);
    }
    expect(await signIn('d1@example.test', 'old-Secret-1')).toBe('OK');
    // With the role policy on the journal that finished it: the role is given (the app refuses it).
    const r = await run(['d-v1.ndjson', '--journal', 'd.ndjson', '--disabled', 'role:blocked']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(
      (
        await client(sandbox.url).getUserRoles(
          (await client(sandbox.url).listUsersByAccountInfo({ email: 'd1@example.test' })).users[0]!.id,
        )
      ).roles,
    ).toEqual(['blocked']);
  });

  it('--update-existing counts what it replaced, works on a resumed journal, and --no-update-existing turns a profile off', async () => {
    write('h-v1.ndjson', [
      { id: 'h1', email: 'h1@example.test', password: { hash: OLD } },
      { id: 'h2', email: 'h2@example.test', password: { hash: OLD } },
    ]);
    expect((await run(['h-v1.ndjson', '--journal', 'h.ndjson'])).exitCode).toBe(0);
    write('h-v1.ndjson', [
      { id: 'h1', email: 'h1@example.test', password: { hash: NEW } },
      { id: 'h2', email: 'h2@example.test', password: { hash: NEW } },
      { id: 'h3', email: 'h3@example.test', password: { hash: NEW } },
    ]);
    const env = { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') };
    await saveProfile(
      {
        name: 'upd',
        target: { kind: 'remote', url: sandbox.url },
        sources: [{ path: join(dir, 'h-v1.ndjson'), format: 'canonical' }],
        updateExisting: true,
        keepSourceIds: true,
        secrets: { apiKey: { store: 'none' }, licenseKey: { store: 'none' }, signerKey: { store: 'none' } },
      },
      {},
      env as NodeJS.ProcessEnv,
    );
    // The profile asks for updates and external ids; the command line turns both off: nothing replaced or mapped.
    const off = await cli(
      ['run', '--profile', 'upd', '--yes', '--journal', 'h.ndjson', '--no-update-existing', '--no-keep-source-ids', '--json'],
      dir,
      env,
    );
    expect(off.exitCode, off.stderr).toBe(0);
    expect(summaryOf(off.stdout)).toMatchObject({ imported: 1, alreadyPresent: 2, replaced: 0 });
    expect(await signIn('h1@example.test', 'old-Secret-1')).toBe('OK');
    expect((await client(sandbox.url).getUserIdMapping('h3', 'EXTERNAL')).status).not.toBe('OK');
    const both = await cli(['run', '--profile', 'upd', '--update-existing', '--no-update-existing'], dir, env);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toMatch(/--update-existing and --no-update-existing contradict each other/);
    // The same (resumed) journal with --update-existing: the two users there before get the new hash, counted.
    const upd = await run(['h-v1.ndjson', '--journal', 'h.ndjson', '--update-existing']);
    expect(upd.exitCode, upd.stderr).toBe(0);
    expect(summaryOf(upd.stdout)).toMatchObject({ alreadyPresent: 3, replaced: 3, failed: 0 });
    expect(upd.stderr).toMatch(/already present 3 \(3 with their password hash replaced\)/);
    expect(
      lines('h.report.ndjson')
        .filter((l) => l.replaced === true)
        .map((l) => l.id)
        .sort(), // in the order the users finished
    ).toEqual(['h1', 'h2', 'h3']);
    expect(await signIn('h1@example.test', 'new-Secret-2')).toBe('OK');
    expect(await signIn('h1@example.test', 'old-Secret-1')).toBe('WRONG_CREDENTIALS_ERROR');
    // Once more on the same journal: done, nothing replaced twice.
    const again = await run(['h-v1.ndjson', '--journal', 'h.ndjson', '--update-existing']);
    expect(summaryOf(again.stdout)).toMatchObject({ alreadyPresent: 3, replaced: 0, resumed: 3 });
  });
});

describe('policies follow the user', () => {
  const users = [
    { id: 'ok', email: 'ok@example.test', password: { hash: OLD } },
    {
      id: 'off',
      email: 'off@example.test',
      disabled: true,
      legacyPassword: { algorithm: 'md5', hash: '5f4dcc3b5aa765d61d8327deb882cf99' },
      thirdParty: [{ providerId: 'google', userId: 'g-off' }],
    },
  ];

  it('validate says what run will do with a disabled user under --disabled', async () => {
    write('p.ndjson', users);
    const skip = await cli(['validate', 'p.ndjson', '--unusable-hashes', 'without-password', '--json'], dir);
    const role = await cli(['validate', 'p.ndjson', '--unusable-hashes', 'without-password', '--disabled', 'role:blocked', '--json'], dir);
    const warning = (out: string) =>
      (JSON.parse(out) as { problems: Array<{ rule: string; message: string }> }).problems.find((p) => p.rule === 'record.disabled')!
        .message;
    expect(warning(skip.stdout)).toMatch(/`run` leaves it out/);
    expect(warning(role.stdout)).toMatch(/`run` migrates it with the role blocked/);
    expect(warning(role.stdout)).not.toMatch(/leaves it out/);
  });

  it('the sign-in migration file carries the disabled policy and its role', async () => {
    write('p.ndjson', users);
    const r = await run([
      'p.ndjson',
      '--journal',
      'p.journal.ndjson',
      '--unusable-hashes',
      'without-password',
      '--disabled',
      'role:blocked',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const [line] = lines('p.signin-migration.ndjson');
    expect(line).toMatchObject({ sourceId: 'off', disabled: true, disabledPolicy: 'role:blocked', role: 'blocked', outcome: 'imported' });
  });
});
