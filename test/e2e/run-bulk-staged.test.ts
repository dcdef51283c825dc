// End to end, `run --via bulk-staged` (issues 11 and 24) into a real sandbox whose bulk-import job runs every
// second: what the core holds is learnt in bulk and read back in bulk (no per-user request at all); uploads are
// written ahead in the journal; join dates per login method; sign-in, TOTP, links and external ids verify; a
// rerun stages nothing; a user refused at staging is reported with the core's text; the job's FAILED rows are
// settled (a user that came meanwhile is completed by the steps, a real failure is reported) and cleaned up;
// a lost upload answer never stages a batch twice; SIGINT removes what the job has not claimed.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { decodeJournalLine } from '../../src/engine/journal/lines.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { allUsers, BIN, cleanEnv, cli, client, LICENSE, stagedRunArgs, summaryOf, waitFor } from '../support/cli.js';
import { generateUsers, SCRYPT_SIGNER_KEY, writeCredentials, writeNdjson } from '../support/users.js';
import type { CanonicalUser } from '../../src/records/types.js';

// Each test starts a core (twice for some) and runs the CLI two or three times: room for a loaded machine.
vi.setConfig({ testTimeout: 150_000 });

let dir: string;
let sandbox: RunningSandbox | undefined;
let proxy: FaultProxy | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-staged-'));
});
afterEach(async () => {
  await proxy?.stop();
  proxy = undefined;
  await sandbox?.stop();
  sandbox = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const JOINED = Date.UTC(2018, 5, 1);
const DAY = 86_400_000;
const withJoinDates = (users: CanonicalUser[]): CanonicalUser[] => users.map((u, i) => ({ ...u, timeJoined: JOINED + i * DAY }));
const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';

async function startCore(intervalSec = 1, port = 0, licensed = true): Promise<RunningSandbox> {
  sandbox = await startSandbox({
    port,
    store: join(dir, 'store.json'),
    ...(licensed ? { licenseKey: LICENSE } : {}),
    signerKey: SCRYPT_SIGNER_KEY,
    bulkImportIntervalSec: intervalSec,
  });
  return sandbox;
}

const stagedCount = async (url: string, status?: 'NEW' | 'PROCESSING' | 'FAILED'): Promise<number> =>
  (await client(url).bulkImport.countUsers(status)).count;

type Line = Record<string, unknown>;
const journalLines = (path: string): Line[] =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .flatMap((l) => decodeJournalLine(l) as unknown as Line[]);
const reportOf = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: string; outcome: string; step?: string; status?: string; message?: string });

describe('run --via bulk-staged', () => {
  it('imports a mixed set with join dates through the job, without a request per user; verify passes; a rerun stages nothing', async () => {
    const set = generateUsers(40, { prefix: 's' });
    const users = withJoinDates(set.users);
    writeNdjson(join(dir, 'users.ndjson'), users);
    writeCredentials(join(dir, 'creds.csv'), set.passwords);
    const core = await startCore();
    proxy = await startFaultProxy({ target: core.url });
    const args = [
      'run',
      'users.ndjson',
      '--core',
      proxy.url,
      '--yes',
      '--via',
      'bulk-staged',
      '--batch-size',
      '15',
      '--job-interval',
      '1',
      '--json',
    ];
    const r = await cli([...args, '--journal', 'j.ndjson'], dir);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(summaryOf(r.stdout)).toMatchObject({ total: 40, imported: 40, failed: 0 });
    expect(r.stderr).toMatch(/core's bulk-import job: .*\d+ staged, \d+ processing, \d+ failed in its list/);
    expect(await stagedCount(core.url)).toBe(0);
    // Learnt and read back in bulk: three uploads, and not one look-up of a user. GET /users: one to learn, then
    // the awaited users' join-time range read back (a token probe and a page).
    const log = proxy.stats.log;
    expect(log.filter((l) => l === 'POST /bulk-import/users')).toHaveLength(3);
    expect(log.filter((l) => /by-accountinfo|^GET \/user\/id$/.test(l))).toEqual([]);
    expect(log.filter((l) => l === 'GET /users').length).toBeLessThanOrEqual(3);

    // Write-ahead: each user's `staged` line comes before its settled step, which names the core's ids.
    const lines = journalLines(join(dir, 'j.ndjson'));
    for (const u of users) {
      const at = lines.findIndex((l) => l.type === 'staged' && l.user === u.id);
      const settled = lines.findIndex((l) => l.type === 'step' && l.user === u.id && l.step === 'bulk-staged');
      expect(at, u.id).toBeGreaterThan(0);
      expect(settled, u.id).toBeGreaterThan(at);
      expect(lines[settled]!.result).toBe('created');
      if (u.externalUserId) expect((lines[settled]!.ids as Record<string, string>).recipeUserId).toBe(u.externalUserId);
    }

    const c = client(core.url);
    expect((await allUsers(c)).length).toBe(40);
    for (const [i, u] of users.entries()) {
      if (!u.externalUserId) continue;
      const got = await c.getUserById(u.externalUserId);
      expect(got.status).toBe('OK');
      if (got.status === 'OK') for (const lm of got.user.loginMethods) expect(lm.timeJoined, u.id).toBe(JOINED + i * DAY);
    }
    const v = await cli(
      ['verify', 'users.ndjson', '--core', core.url, '--journal', 'j.ndjson', '--credentials', 'creds.csv', '--totp-codes', '--json'],
      dir,
    );
    expect(v.exitCode, v.stdout + v.stderr).toBe(0);
    expect(summaryOf(v.stdout)).toMatchObject({ total: 40, ok: 40, missing: 0, mismatch: 0 });

    const again = await cli([...args, '--journal', 'j2.ndjson'], dir);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(summaryOf(again.stdout)).toMatchObject({ imported: 0, alreadyPresent: 40 });
    expect((await allUsers(c)).length).toBe(40);
    c.close();
  });

  it("a user refused at staging is reported with the core's text and the rest uploaded", async () => {
    const users = [
      { id: 'v1', email: 'v1@example.test', password: { hash: BCRYPT }, timeJoined: JOINED },
      { id: 'future', email: 'future@example.test', password: { hash: BCRYPT }, timeJoined: Date.now() + 365 * DAY },
      { id: 'v2', email: 'v2@example.test', thirdParty: [{ providerId: 'google', userId: 'g-2' }], timeJoined: JOINED },
      { id: 'v3', email: 'v3@example.test', password: { hash: BCRYPT } },
    ];
    writeFileSync(join(dir, 'users.ndjson'), users.map((u) => JSON.stringify(u)).join('\n') + '\n');
    const core = await startCore();
    const r = await cli(
      ['run', 'users.ndjson', '--core', core.url, '--yes', '--via', 'bulk-staged', '--journal', 'j.ndjson', '--json'],
      dir,
    );
    expect(r.exitCode).toBe(1);
    const s = summaryOf(r.stdout);
    expect(s).toMatchObject({ imported: 3, failed: 1 });
    const future = reportOf(s.reportFile as string).find((x) => x.id === 'future')!;
    expect(future).toMatchObject({ outcome: 'failed', status: 'BULK_STAGE_REFUSED' });
    expect(future.message).toContain('timeJoined cannot be in future for a loginMethod.');
    expect(readFileSync(s.failuresFile as string, 'utf8')).toContain('"id":"future"');
    expect(await stagedCount(core.url)).toBe(0);
    expect((await client(core.url).listUsersByAccountInfo({ email: 'v1@example.test' })).users[0]!.timeJoined).toBe(JOINED);
  });

  it("the job's FAILED rows: a user that came meanwhile is completed by the steps, a real failure is reported; no row is left", async () => {
    const users = [
      { id: 'ok', email: 'ok@example.test', password: { hash: BCRYPT }, timeJoined: JOINED },
      { id: 'came', email: 'came@example.test', password: { hash: BCRYPT }, timeJoined: JOINED },
      {
        id: 'mfa',
        email: 'mfa@example.test',
        password: { hash: BCRYPT },
        totp: [{ secret: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ' }],
        timeJoined: JOINED,
      },
    ];
    writeFileSync(join(dir, 'users.ndjson'), users.map((u) => JSON.stringify(u)).join('\n') + '\n');
    let core = await startCore(3600);
    const args = ['run', 'users.ndjson', '--via', 'bulk-staged', '--job-interval', '3600', '--journal', 'j.ndjson', '--json'];
    const child = execa(process.execPath, [BIN, ...args, '--core', core.url, '--yes'], {
      cwd: dir,
      reject: false,
      env: cleanEnv(),
      extendEnv: false,
    });
    await waitFor(async () => (await stagedCount(core.url)) === 3, 'the users staged');
    // Before the job runs: "came" signs up in the app, and the core loses its licence (no MFA: TOTP refused).
    const c = client(core.url);
    await c.importPasswordHash({ email: 'came@example.test', passwordHash: BCRYPT });
    await c.raw({ method: 'DELETE', path: '/ee/license', scope: 'app' });
    c.close();
    await core.stop();
    core = await startCore(1, core.port, false);
    const r = await child;
    expect(r.exitCode, r.stderr + r.stdout).toBe(1);
    const s = summaryOf(r.stdout);
    expect(s).toMatchObject({ imported: 1, alreadyPresent: 1, failed: 1 });
    const report = reportOf(s.reportFile as string);
    expect(report.find((x) => x.id === 'came')).toMatchObject({ outcome: 'alreadyPresent' });
    const mfa = report.find((x) => x.id === 'mfa')!;
    expect(mfa).toMatchObject({ outcome: 'failed', status: 'BULK_IMPORT_FAILED' });
    expect(mfa.message).toMatch(/MFA must be enabled/);
    expect(JSON.stringify(report)).not.toContain('GEZDGNBVGY3TQOJQ');
    const failures = readFileSync(s.failuresFile as string, 'utf8')
      .trim()
      .split('\n');
    expect(failures.map((l) => (JSON.parse(l) as { id: string }).id)).toEqual(['mfa']);
    expect(await stagedCount(core.url)).toBe(0); // the run's FAILED rows are cleaned up
    // The journal: "came" settled by the steps (found there), not as created by this migration.
    const lines = journalLines(join(dir, 'j.ndjson'));
    expect(lines.some((l) => l.user === 'came' && l.step === 'password' && l.result === 'already')).toBe(true);
    expect(lines.some((l) => l.user === 'came' && l.step === 'bulk-staged')).toBe(false);
  });

  it('a lost answer to an upload: looked for before sending again, never staged twice, nothing reported failed', async () => {
    const set = generateUsers(60, { prefix: 'l', simple: true });
    writeNdjson(join(dir, 'users.ndjson'), withJoinDates(set.users));
    const core = await startCore();
    // The core stages the second batch and the answer never arrives.
    proxy = await startFaultProxy({
      target: core.url,
      sequence: [null, 'reset-after-forward'],
      faultOnly: (method, path) => method === 'POST' && path === '/bulk-import/users',
    });
    const r = await cli(stagedRunArgs(proxy.url, ['--batch-size', '20']), dir);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(proxy.stats.resetAfterForward).toEqual(['POST /bulk-import/users']);
    expect(proxy.stats.log.filter((l) => l === 'POST /bulk-import/users')).toHaveLength(3);
    expect(summaryOf(r.stdout)).toMatchObject({ imported: 60, failed: 0 });
    expect(readFileSync(summaryOf(r.stdout).failuresFile as string, 'utf8')).toBe('');
    expect((await allUsers(client(core.url))).length).toBe(60);
    expect(await stagedCount(core.url)).toBe(0);
  });

  it('SIGINT removes the staged users the job has not claimed; the same command later carries on', async () => {
    const set = generateUsers(30, { prefix: 'i', simple: true });
    writeNdjson(join(dir, 'users.ndjson'), withJoinDates(set.users));
    let core = await startCore(3600);
    const args = ['run', 'users.ndjson', '--via', 'bulk-staged', '--job-interval', '3600', '--journal', 'j.ndjson', '--json'];
    const child = execa(process.execPath, [BIN, ...args, '--core', core.url, '--yes'], {
      cwd: dir,
      reject: false,
      env: cleanEnv(),
      extendEnv: false,
    });
    await waitFor(async () => (await stagedCount(core.url)) === 30, 'the users staged');
    child.kill('SIGINT');
    const first = await child;
    expect(first.exitCode, first.stderr).toBe(130);
    expect(first.stderr).toMatch(/took 30 staged users back out of the core's list/);
    expect(await stagedCount(core.url)).toBe(0);
    expect((await allUsers(client(core.url))).length).toBe(0);
    // The same core (store and port) with its job running now.
    await core.stop();
    core = await startCore(1, core.port);
    const second = await cli([...args, '--core', core.url, '--yes'], dir);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(summaryOf(second.stdout)).toMatchObject({ imported: 30, failed: 0 });
  });
});
