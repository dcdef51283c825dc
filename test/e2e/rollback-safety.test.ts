// `auth-migrate rollback` on a real sandbox, the ways it went wrong (issue 20 points 1, 2, 9, 10 and issue 23's
// "rehearse, undo, rehearse again"): external ids are resolved to the core's own id before removing, a mapping on a
// user whose email the run verified comes off with exit 0, a core that does not hold the journal's users (another
// core at the same address, an empty one) is refused with nothing removed, a torn last line of the rollback's log is
// recovered, and the undo retires the journal so the same run command starts afresh.
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { allUsers, cli, client, LICENSE, summaryOf } from '../support/cli.js';
import { generateUsers, SCRYPT_SIGNER_KEY, writeNdjson } from '../support/users.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
let dir: string;
let sandbox: RunningSandbox | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-rollback-safety-'));
});
afterEach(async () => {
  await sandbox?.stop();
  sandbox = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function startCore(store = 'store.json', port = 0): Promise<RunningSandbox> {
  sandbox = await startSandbox({ port, store: join(dir, store), licenseKey: LICENSE, signerKey: SCRYPT_SIGNER_KEY });
  return sandbox;
}

const count = async (url: string): Promise<number> => (await allUsers(client(url))).length;

describe('rollback', () => {
  it('after --keep-source-ids leaves exactly the users that were there before (removed by the core id, read back)', async () => {
    const core = await startCore();
    const c = client(core.url);
    const before = await c.importPasswordHash({ email: 'before@example.test', passwordHash: BCRYPT });
    writeNdjson(join(dir, 'users.ndjson'), [
      { id: 'u1', email: 'u1@example.test', password: { hash: BCRYPT } },
      { id: 'u2', email: 'u2@example.test', password: { hash: BCRYPT }, totp: [{ secret: 'JBSWY3DPEHPK3PXP', deviceName: 'phone' }] },
    ]);
    const run = await cli(
      ['run', 'users.ndjson', '--core', core.url, '--yes', '--keep-source-ids', '--journal', 'j.ndjson', '--json'],
      dir,
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect((await c.getUserIdMapping('u1', 'EXTERNAL')).status).toBe('OK');
    const r = await cli(['rollback', '--journal', 'j.ndjson', '--yes', '--json'], dir);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(summaryOf(r.stdout)).toMatchObject({ removed: 2, failed: 0 });
    expect((await allUsers(c)).map((u) => u.id)).toEqual([before.user.id]);
    for (const ext of ['u1', 'u2']) expect((await c.getUserIdMapping(ext, 'EXTERNAL')).status).toBe('UNKNOWN_MAPPING_ERROR');
    expect((await c.listTotpDevices('u2')).devices).toEqual([]);
  });

  it('takes its mapping off a user that was there before and whose email it verified, exit 0; the user keeps its login', async () => {
    const core = await startCore();
    const c = client(core.url);
    const present = await c.importPasswordHash({ email: 'present@example.test', passwordHash: BCRYPT });
    writeNdjson(join(dir, 'users.ndjson'), [
      { id: 'p1', email: 'present@example.test', emailVerified: true, externalUserId: 'ext-p1', password: { hash: BCRYPT } },
    ]);
    const run = await cli(['run', 'users.ndjson', '--core', core.url, '--yes', '--journal', 'j.ndjson', '--json'], dir);
    expect(run.exitCode, run.stderr).toBe(0);
    expect((await c.getUserIdMapping('ext-p1', 'EXTERNAL')).status).toBe('OK');
    const r = await cli(['rollback', '--journal', 'j.ndjson', '--yes', '--json'], dir);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(summaryOf(r.stdout)).toMatchObject({ undone: 1, failed: 0 });
    expect(r.stderr).toContain('not undone: user p1: verify-email:password: the email stays verified');
    expect((await c.getUserIdMapping('ext-p1', 'EXTERNAL')).status).toBe('UNKNOWN_MAPPING_ERROR');
    const now = await c.getUserById(present.user.id);
    expect(now.status === 'OK' && now.user.loginMethods.map((m) => [m.recipeUserId, m.email, m.verified])).toEqual([
      [present.user.id, 'present@example.test', true],
    ]);
  });

  it('refuses another core at the same address, and an empty one: nothing removed, exit 2', async () => {
    const first = await startCore('first.json');
    const port = Number(new URL(first.url).port);
    writeNdjson(join(dir, 'users.ndjson'), generateUsers(20, { prefix: 'a', simple: true }).users);
    const run = await cli(['run', 'users.ndjson', '--core', first.url, '--yes', '--journal', 'j.ndjson', '--json'], dir);
    expect(run.exitCode, run.stderr).toBe(0);
    await first.stop();

    // Another core on the same port, holding 30 users of another run.
    const other = await startCore('other.json', port);
    const oc = client(other.url);
    for (let i = 0; i < 30; i++) await oc.importPasswordHash({ email: `other${i}@example.test`, passwordHash: BCRYPT });
    const r = await cli(['rollback', '--journal', 'j.ndjson', '--yes'], dir);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /the core holds none of the 20 users the journal .* it was reset, or this is another core .* Nothing was removed/,
    );
    expect(await count(other.url)).toBe(30);
    const dry = await cli(['rollback', '--journal', 'j.ndjson', '--dry-run'], dir);
    expect(dry.exitCode).toBe(2);
    await other.stop();

    // An empty core there: the same refusal (it used to report "20 actions done", exit 0).
    const empty = await startCore('empty.json', port);
    const e = await cli(['rollback', '--journal', 'j.ndjson', '--yes'], dir);
    expect(e.exitCode).toBe(2);
    expect(e.stderr).toContain('the core holds none of the 20 users');
    expect(existsSync(join(dir, 'j.ndjson'))).toBe(true); // not retired: nothing was undone
    await empty.stop();

    // The right core again: undone.
    const back = await startCore('first.json', port);
    const ok = await cli(['rollback', '--journal', 'j.ndjson', '--yes', '--json'], dir);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(summaryOf(ok.stdout)).toMatchObject({ removed: 20, failed: 0 });
    expect(await count(back.url)).toBe(0);
  });

  it('recovers a torn last line of its log, names a damaged line before others, and asks about users in an upload when a staged run stopped', async () => {
    const core = await startCore();
    writeNdjson(join(dir, 'users.ndjson'), generateUsers(6, { prefix: 't', simple: true }).users);
    const run = await cli(['run', 'users.ndjson', '--core', core.url, '--yes', '--journal', 'j.ndjson', '--json'], dir);
    expect(run.exitCode, run.stderr).toBe(0);
    // A --via bulk-staged write-ahead line with nothing after it: that user cannot be found from the journal alone.
    appendFileSync(join(dir, 'j.ndjson'), '{"user":"t-upload","staged":1700000000000}\n');
    const unsettled = await cli(['rollback', '--journal', 'j.ndjson', '--yes'], dir);
    expect(unsettled.exitCode).toBe(2);
    expect(unsettled.stderr).toContain('names 1 users (t-upload) that were in an upload');
    // A rollback killed while writing its log.
    const log = join(dir, 'j.ndjson.rollback.ndjson');
    writeFileSync(log, `{"user":"t0","done":"removed","at":"2026-11-25T00:00:00.000Z"}\n{"user":"t1","do`);
    const r = await cli(['rollback', '--journal', 'j.ndjson', '--yes', '--json', '--force'], dir);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('not undone: user t-upload: in an upload to the staging list when the run stopped');
    expect(r.stderr).not.toMatch(/SyntaxError|at JSON\.parse/);
    expect(summaryOf(r.stdout)).toMatchObject({ removed: 6, failed: 0 });
    expect(await count(core.url)).toBe(0);
    // The log moved with the retired journal; every line whole.
    const moved = join(dir, 'j.ndjson.rolled-back.rollback.ndjson');
    const lines = readFileSync(moved, 'utf8').trimEnd().split('\n');
    const entries = lines.map((l) => JSON.parse(l) as { user: string; done?: string; intent?: string });
    expect(
      entries
        .filter((e) => e.done)
        .map((e) => e.user)
        .sort(),
    ).toEqual(['t0', 't0', 't1', 't2', 't3', 't4', 't5']);
    // Write-ahead: each user this rollback removed was named, synced, before its first removal request.
    for (const user of ['t1', 't2', 't3', 't4', 't5']) {
      const intent = entries.findIndex((e) => e.user === user && e.intent === 'remove');
      expect(intent, user).toBeGreaterThanOrEqual(0);
      expect(
        entries.findIndex((e, i) => i > intent && e.user === user && e.done === 'removed'),
        user,
      ).toBeGreaterThan(intent);
    }

    // A damaged line with lines after it: a clear refusal naming it.
    writeFileSync(moved, `{"user":"t0","do\n{"user":"t1","done":"removed","at":"x"}\n`);
    const bad = await cli(['rollback', '--journal', 'j.ndjson', '--yes'], dir);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain(`${moved}:1 is damaged and is not the last line`);
    expect(bad.stderr).not.toMatch(/SyntaxError/);
  });

  it('retires the journal: rehearse, undo, rehearse again works with the same command (run folder or --journal)', async () => {
    writeNdjson(join(dir, 'users.ndjson'), generateUsers(8, { prefix: 'r', simple: true }).users);
    const store = join(dir, 'rehearsal.json');
    const target = ['--sandbox', '--store', store, '--license-key', LICENSE];

    // The default layout: a run folder per run.
    const first = await cli(['run', 'users.ndjson', ...target, '--json'], dir);
    expect(first.exitCode, first.stderr).toBe(0);
    // Without a profile a run folder is named after the sources' format.
    const folders = () => readdirSync(dir).filter((f) => f.startsWith('canonical-'));
    expect(folders().length).toBe(1);
    const journal = join(dir, folders()[0]!, 'journal.ndjson');
    const undo = await cli(['rollback', '--journal', journal, '--license-key', LICENSE, '--json'], dir);
    expect(undo.exitCode, undo.stderr).toBe(0);
    expect(summaryOf(undo.stdout)).toMatchObject({ removed: 8, journal: `${journal}.rolled-back` });
    const again = await cli(['run', 'users.ndjson', ...target, '--json'], dir);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(summaryOf(again.stdout)).toMatchObject({ imported: 8, alreadyPresent: 0 });
    expect(folders().length).toBe(2);

    // An explicit --journal: the same path starts a new journal.
    const args = [
      'run',
      'users.ndjson',
      '--sandbox',
      '--store',
      join(dir, 'other.json'),
      '--license-key',
      LICENSE,
      '--journal',
      'j.ndjson',
    ];
    expect((await cli([...args, '--json'], dir)).exitCode).toBe(0);
    const u2 = await cli(['rollback', '--journal', 'j.ndjson', '--license-key', LICENSE, '--json'], dir);
    expect(u2.exitCode, u2.stderr).toBe(0);
    const r2 = await cli([...args, '--json'], dir);
    expect(r2.exitCode, r2.stderr).toBe(0);
    expect(summaryOf(r2.stdout)).toMatchObject({ imported: 8 });
    // A second undo of the new run retires it beside the first.
    expect((await cli(['rollback', '--journal', 'j.ndjson', '--license-key', LICENSE], dir)).exitCode).toBe(0);
    expect(existsSync(join(dir, 'j.ndjson.rolled-back-2'))).toBe(true);
  }, 180_000);
});
