// End to end, `run --via bulk-staged` (issue 11) into a real sandbox whose bulk-import job runs every second:
// batches staged in POST /bulk-import/users, the job followed to the end; join dates per login method; sign-in,
// TOTP, links and external ids verify; a rerun stages nothing; a batch with one invalid user (a join date in the
// future) is refused as the reference refuses it, that user reported and the rest uploaded; a user the job fails
// is in the report and failures file with the core's message; SIGKILL then the same command ends exact; SIGINT
// removes what the job has not claimed.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { allUsers, BIN, cleanEnv, cli, client, LICENSE, summaryOf, waitFor } from '../migration/support/cli.js';
import { generateUsers, SCRYPT_SIGNER_KEY, writeCredentials, writeNdjson } from '../migration/support/users.js';
import type { CanonicalUser } from '../../src/records/types.js';

let dir: string;
let sandbox: RunningSandbox | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-staged-'));
});
afterEach(async () => {
  await sandbox?.stop();
  sandbox = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const JOINED = Date.UTC(2018, 5, 1);
const DAY = 86_400_000;
const withJoinDates = (users: CanonicalUser[]): CanonicalUser[] => users.map((u, i) => ({ ...u, timeJoined: JOINED + i * DAY }));
const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';

async function startCore(intervalSec = 1, port = 0): Promise<RunningSandbox> {
  sandbox = await startSandbox({
    port,
    store: join(dir, 'store.json'),
    licenseKey: LICENSE,
    signerKey: SCRYPT_SIGNER_KEY,
    bulkImportIntervalSec: intervalSec,
  });
  return sandbox;
}

const stagedCount = async (url: string): Promise<number> => (await client(url).bulkImport.countUsers()).count;

describe('run --via bulk-staged', () => {
  it('imports a mixed set with join dates through the job; verify passes; a rerun stages nothing', async () => {
    const set = generateUsers(40, { prefix: 's' });
    const users = withJoinDates(set.users);
    writeNdjson(join(dir, 'users.ndjson'), users);
    writeCredentials(join(dir, 'creds.csv'), set.passwords);
    const core = await startCore();
    const args = ['run', 'users.ndjson', '--core', core.url, '--via', 'bulk-staged', '--batch-size', '15', '--json'];
    const r = await cli([...args, '--journal', 'j.ndjson'], dir);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(summaryOf(r.stdout)).toMatchObject({ total: 40, imported: 40, failed: 0 });
    expect(r.stderr).toMatch(/core's bulk-import job: \d+ staged, \d+ processing, \d+ failed/);
    expect(await stagedCount(core.url)).toBe(0);

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

  it("a batch with one invalid user: that user reported with the core's text, the rest uploaded; a user the job fails is reported", async () => {
    const taken = { id: 't0', email: 't0@example.test', thirdParty: [{ providerId: 'github', userId: 'gh-1' }] };
    const users = [
      { id: 'v1', email: 'v1@example.test', password: { hash: BCRYPT }, timeJoined: JOINED },
      { id: 'future', email: 'future@example.test', password: { hash: BCRYPT }, timeJoined: Date.now() + 365 * DAY },
      // The job fails it: its second login method (github gh-1) belongs to t0 already.
      { id: 'clash', email: 'clash@example.test', password: { hash: BCRYPT }, thirdParty: [{ providerId: 'github', userId: 'gh-1' }] },
      { id: 'v2', email: 'v2@example.test', thirdParty: [{ providerId: 'google', userId: 'g-2' }], timeJoined: JOINED },
    ];
    writeFileSync(join(dir, 'first.ndjson'), JSON.stringify(taken) + '\n');
    writeFileSync(join(dir, 'users.ndjson'), users.map((u) => JSON.stringify(u)).join('\n') + '\n');
    const core = await startCore();
    expect((await cli(['run', 'first.ndjson', '--core', core.url, '--journal', 'j0.ndjson'], dir)).exitCode).toBe(0);
    const r = await cli(['run', 'users.ndjson', '--core', core.url, '--via', 'bulk-staged', '--journal', 'j.ndjson', '--json'], dir);
    expect(r.exitCode).toBe(1);
    const s = summaryOf(r.stdout);
    expect(s).toMatchObject({ imported: 2, failed: 2 });
    const report = readFileSync(s.reportFile as string, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; outcome: string; status?: string; message?: string });
    const future = report.find((x) => x.id === 'future')!;
    expect(future).toMatchObject({ outcome: 'failed', status: 'BULK_STAGE_REFUSED' });
    expect(future.message).toContain('timeJoined cannot be in future for a loginMethod.');
    const clash = report.find((x) => x.id === 'clash')!;
    expect(clash).toMatchObject({ outcome: 'failed', status: 'BULK_IMPORT_FAILED' });
    expect(clash.message).toMatch(/already exists/);
    const failures = readFileSync(s.failuresFile as string, 'utf8');
    expect(failures).toContain('"id":"future"');
    expect(failures).toContain('"id":"clash"');
    // The job's FAILED row stays in the staging list (as in the reference); the rest were imported.
    expect(await stagedCount(core.url)).toBe(1);
    expect((await client(core.url).listUsersByAccountInfo({ email: 'v1@example.test' })).users[0]!.timeJoined).toBe(JOINED);
  });

  it('a SIGKILL after the upload, then the same command: exact totals and no duplicate', async () => {
    const set = generateUsers(120, { prefix: 'q', simple: true });
    writeNdjson(join(dir, 'users.ndjson'), withJoinDates(set.users));
    const core = await startCore(2);
    const args = [
      'run',
      'users.ndjson',
      '--core',
      core.url,
      '--via',
      'bulk-staged',
      '--batch-size',
      '50',
      '--journal',
      'j.ndjson',
      '--json',
    ];
    const child = execa(process.execPath, [BIN, ...args], { cwd: dir, reject: false, env: cleanEnv(), extendEnv: false });
    await waitFor(async () => {
      if (child.exitCode !== null) throw new Error('run ended before the kill');
      return (await stagedCount(core.url)) > 0;
    }, 'a first batch staged');
    child.kill('SIGKILL');
    expect((await child).signal).toBe('SIGKILL');
    const second = await cli(args, dir);
    expect(second.exitCode, second.stderr).toBe(0);
    const s = summaryOf(second.stdout);
    expect(s.failed).toBe(0);
    expect((s.imported as number) + (s.alreadyPresent as number)).toBe(120);
    const users = await allUsers(client(core.url));
    expect(users.length).toBe(120);
    expect(await stagedCount(core.url)).toBe(0);
  });

  it('SIGINT removes the staged users the job has not claimed; the same command later carries on', async () => {
    const set = generateUsers(30, { prefix: 'i', simple: true });
    writeNdjson(join(dir, 'users.ndjson'), withJoinDates(set.users));
    let core = await startCore(3600);
    const args = ['run', 'users.ndjson', '--via', 'bulk-staged', '--journal', 'j.ndjson', '--json'];
    const child = execa(process.execPath, [BIN, ...args, '--core', core.url], {
      cwd: dir,
      reject: false,
      env: cleanEnv(),
      extendEnv: false,
    });
    await waitFor(async () => (await stagedCount(core.url)) === 30, 'the users staged');
    child.kill('SIGINT');
    const first = await child;
    expect(first.exitCode, first.stderr).toBe(130);
    expect(first.stderr).toMatch(/removed 30 staged users/);
    expect(await stagedCount(core.url)).toBe(0);
    expect((await allUsers(client(core.url))).length).toBe(0);
    // The same core (store and port) with its job running now.
    await core.stop();
    core = await startCore(1, core.port);
    const second = await cli([...args, '--core', core.url], dir);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(summaryOf(second.stdout)).toMatchObject({ imported: 30, failed: 0 });
  });
});
