// One history per migration (issue 31, item 3), on the sandbox over real HTTP: a sync removes users
// (--remove-missing), its rollback imports them again under new ids and records those ids in the first run's
// journal; a later sync finds them there (not "not in the core any more"); the first run cannot be rolled back while
// a sync made on it is live (refused, naming the sync); rolled back newest first, the core is as before the first
// run, the user that was there before untouched.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';
import base32 from 'hi-base32';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CanonicalUser } from '../../src/records/types.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { allUsers, cli, client, LICENSE, summaryOf } from '../support/cli.js';
import { writeNdjson } from '../support/users.js';

const env = { AUTH_MIGRATE_LICENSE_KEY: LICENSE };
let dir: string;
let sandbox: RunningSandbox;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-sync-chain-'));
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE });
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const user = (id: string, extra: Partial<CanonicalUser> = {}): CanonicalUser => ({
  id,
  email: `${id}@example.com`,
  emailVerified: true,
  password: { hash: bcrypt.hashSync(`${id}-Secret-1`, 4) },
  ...extra,
});
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe.each(['steps', 'bulk'])('one history per migration, first run --via %s', (via) => {
  it('a rollback re-imports under ids the next sync and the full undo find; an earlier run waits for its syncs', async () => {
    const out = `runs-${via}`;
    const core = client(sandbox.url);
    // There before the migration: stays through everything.
    const before = await core.importPasswordHash({
      email: `there-before-${via}@example.com`,
      passwordHash: bcrypt.hashSync('x-Secret-1', 4),
    });
    const first = [
      user('keep'),
      user('gone1', { totp: [{ secret: base32.encode(randomBytes(20)).replace(/=+$/, ''), deviceName: 'phone' }] }),
      user('gone2', { metadata: { tier: 'basic' }, roles: ['viewer'] }),
      user('moved'),
    ];
    const second = clone(first).filter((u) => !u.id.startsWith('gone'));
    second.find((u) => u.id === 'moved')!.email = 'moved-new@example.com';
    const third = clone(first);
    third.find((u) => u.id === 'gone2')!.metadata = { tier: 'gold' };
    writeNdjson(join(dir, 'one.ndjson'), first);
    writeNdjson(join(dir, 'two.ndjson'), second);
    writeNdjson(join(dir, 'three.ndjson'), third);
    const args = (file: string, ...more: string[]) => ['run', file, '--core', sandbox.url, '--out', out, '--yes', ...more];
    const run = await cli([...args('one.ndjson', '--via', via), '--json'], dir, env);
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
    const firstJournal = (summaryOf(run.stdout) as { journal: string }).journal;

    const sync = await cli([...args('two.ndjson', '--sync', '--remove-missing'), '--json'], dir, env);
    expect(sync.exitCode, sync.stderr.slice(-3000)).toBe(0);
    const syncJournal = (summaryOf(sync.stdout) as { journal: string }).journal;
    expect((await core.listUsersByAccountInfo({ email: 'gone1@example.com' })).users).toHaveLength(0);

    // The first run cannot be undone under its live sync: refused, naming the sync, nothing changed.
    const early = await cli(['rollback', '--journal', firstJournal, '--core', sandbox.url, '--yes'], dir, env);
    expect(early.exitCode).toBe(2);
    expect(early.stderr).toContain(syncJournal);
    expect(early.stderr).toMatch(/Roll back the sync first/);
    expect((await core.listUsersByAccountInfo({ email: 'keep@example.com' })).users).toHaveLength(1);

    // The sync's rollback: the removed users again (new ids), recorded in the first run's journal.
    const back = await cli(['rollback', '--journal', syncJournal, '--core', sandbox.url, '--yes'], dir, env);
    expect(back.exitCode, back.stderr.slice(-3000)).toBe(0);
    const again = (await core.listUsersByAccountInfo({ email: 'gone2@example.com' })).users[0]!;
    expect(readFileSync(firstJournal, 'utf8')).toContain(again.id);
    const verify = await cli(['verify', 'one.ndjson', '--core', sandbox.url, '--json'], dir, env);
    expect(verify.exitCode, verify.stdout.slice(0, 2000)).toBe(0);

    // A later sync finds the re-imported user by the recorded ids and updates it.
    const later = await cli([...args('three.ndjson', '--sync'), '--json'], dir, env);
    expect(later.exitCode, later.stdout + later.stderr.slice(-3000)).toBe(0);
    const laterDone = summaryOf(later.stdout) as { journal: string; reportFile: string };
    expect(readFileSync(laterDone.reportFile, 'utf8')).not.toMatch(/NOT_IN_CORE/);
    expect((await core.getUserMetadata(again.id)).metadata).toEqual({ tier: 'gold' });

    // Newest first: the later sync, then the first run; the core is as before the first run.
    expect((await cli(['rollback', '--journal', firstJournal, '--core', sandbox.url, '--yes'], dir, env)).exitCode).toBe(2);
    const undoLater = await cli(['rollback', '--journal', laterDone.journal, '--core', sandbox.url, '--yes'], dir, env);
    expect(undoLater.exitCode, undoLater.stderr.slice(-3000)).toBe(0);
    const undoFirst = await cli(['rollback', '--journal', firstJournal, '--core', sandbox.url, '--yes'], dir, env);
    expect(undoFirst.exitCode, undoFirst.stderr.slice(-3000)).toBe(0);
    expect(undoFirst.stdout + undoFirst.stderr).toMatch(
      /4 users removed, 0 users there before restored, 0 kept \(changed since\), 0 gone already, 0 failed/,
    );
    const left = await allUsers(core);
    expect(left.map((u) => u.id)).toEqual([before.user.id]);
    await core.raw({ method: 'POST', path: '/user/remove', scope: 'app', body: { userId: before.user.id } }); // the next case starts empty
  }, 420_000);
});
