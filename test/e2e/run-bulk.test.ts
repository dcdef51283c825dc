// End to end, `run --via bulk` (issue 11) into a real sandbox: a mixed set with join dates goes through
// POST /bulk-import/import; GET /user/id shows each login method's timeJoined as the source had it; passwords sign
// in, TOTP codes verify, linked methods and external ids are as with --via steps; a rerun imports nothing twice;
// answers lost after the core applied them (the fault proxy) neither duplicate nor fail a user; a SIGKILL mid-run
// then the same command ends exact; a user the core refuses is in the report and failures file with its message.
import { decodeJournalLine } from '../../src/engine/journal/lines.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { bulkImportOffered } from '../../src/engine/target-check.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { allUsers, BIN, cleanEnv, cli, client, LICENSE, summaryOf, waitFor } from '../support/cli.js';
import { generateUsers, SCRYPT_SIGNER_KEY, writeCredentials, writeNdjson } from '../support/users.js';
import type { CanonicalUser } from '../../src/records/types.js';

let dir: string;
let sandbox: RunningSandbox | undefined;
let proxy: FaultProxy | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-bulk-'));
});
afterEach(async () => {
  await proxy?.stop();
  await sandbox?.stop();
  proxy = undefined;
  sandbox = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const JOINED = Date.UTC(2019, 0, 1);
/** The generated mixed set, each user with its own join date in the past. */
function withJoinDates(users: CanonicalUser[]): CanonicalUser[] {
  return users.map((u, i) => ({ ...u, timeJoined: JOINED + i * 86_400_000 }));
}

function journalUsers(path: string): number {
  if (!existsSync(path)) return 0;
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => {
      try {
        return decodeJournalLine(line).some((e) => e.type === 'user');
      } catch {
        return false;
      }
    }).length;
}

async function startCore(): Promise<RunningSandbox> {
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE, signerKey: SCRYPT_SIGNER_KEY });
  return sandbox;
}

describe('run --via bulk', () => {
  it("keeps each login method's timeJoined; sign-in, TOTP, links and external ids verify; a rerun imports nothing twice", async () => {
    const set = generateUsers(40);
    const users = withJoinDates(set.users);
    writeNdjson(join(dir, 'users.ndjson'), users);
    writeCredentials(join(dir, 'creds.csv'), set.passwords);
    const core = await startCore();

    const dry = await cli(['run', 'users.ndjson', '--via', 'bulk', '--dry-run', '--steps'], dir);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^user g0: \d login method\(s\), POST \/bulk-import\/import$/m);
    expect(dry.stdout).toContain(`"timeJoinedInMSSinceEpoch":${JOINED}`);
    for (const u of users) {
      if (u.password) expect(dry.stdout).not.toContain(u.password.hash);
      for (const d of u.totp ?? []) expect(dry.stdout).not.toContain(d.secret);
    }
    expect(dry.stdout).toContain('dry run (--via bulk): 40 users to migrate in about 80 requests');
    // Staged, the requests are the uploads and the listing of the core read twice (500 users a page), not 0.
    const staged = await cli(['run', 'users.ndjson', '--via', 'bulk-staged', '--dry-run'], dir);
    expect(staged.stdout).toContain('dry run (--via bulk-staged): 40 users to migrate in about 3 requests (uploads of up to 10000 users');

    const first = await cli(['run', 'users.ndjson', '--core', core.url, '--yes', '--via', 'bulk', '--journal', 'j.ndjson', '--json'], dir);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(summaryOf(first.stdout)).toMatchObject({ total: 40, imported: 40, failed: 0 });

    const c = client(core.url);
    expect((await allUsers(c)).length).toBe(40);
    for (const [i, u] of users.entries()) {
      const found = u.externalUserId
        ? await c.getUserById(u.externalUserId)
        : await c.listUsersByAccountInfo(u.email ? { email: u.email } : { phoneNumber: u.phoneNumber! }).then((r) => ({
            status: 'OK' as const,
            user: r.users[0]!,
          }));
      expect(found.status, u.id).toBe('OK');
      if (found.status !== 'OK') continue;
      for (const lm of found.user.loginMethods) expect(lm.timeJoined, `${u.id} ${lm.recipeId}`).toBe(JOINED + i * 86_400_000);
      expect(found.user.timeJoined).toBe(JOINED + i * 86_400_000);
      const methods = (u.password ? 1 : 0) + (u.thirdParty?.length ?? 0) + (u.phoneNumber ? 1 : 0);
      if (methods + (u.otpFactors && u.otpFactors.phoneNumber !== u.phoneNumber ? 1 : 0) > 1) {
        expect(found.user.isPrimaryUser, u.id).toBe(true);
      }
      if (u.externalUserId) expect(found.user.id).toBe(u.externalUserId);
    }

    const verify = await cli(
      ['verify', 'users.ndjson', '--core', core.url, '--journal', 'j.ndjson', '--credentials', 'creds.csv', '--totp-codes', '--json'],
      dir,
    );
    expect(verify.exitCode, verify.stdout + verify.stderr).toBe(0);
    expect(summaryOf(verify.stdout)).toMatchObject({ total: 40, ok: 40, missing: 0, mismatch: 0 });
    // verify checks each login method's join date for users the journal says a bulk run imported.
    writeNdjson(
      join(dir, 'users.ndjson'),
      users.map((u, i) => (i === 3 ? { ...u, timeJoined: u.timeJoined! + 1000 } : u)),
    );
    const shifted = await cli(['verify', 'users.ndjson', '--core', core.url, '--journal', 'j.ndjson', '--json'], dir);
    expect(shifted.exitCode).toBe(1);
    const problems = (JSON.parse(shifted.stdout) as { problems: Array<{ id: string; differences: string[] }> }).problems;
    expect(problems.map((p) => p.id)).toEqual([users[3]!.id]);
    expect(problems[0]!.differences.join(' ')).toMatch(/joined at \S+, the source says \S+/);
    writeNdjson(join(dir, 'users.ndjson'), users);

    const again = await cli(['run', 'users.ndjson', '--core', core.url, '--yes', '--via', 'bulk', '--journal', 'j2.ndjson', '--json'], dir);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(summaryOf(again.stdout)).toMatchObject({ imported: 0, alreadyPresent: 40, failed: 0 });
    expect((await allUsers(c)).length).toBe(40);
    c.close();
  }, 180_000);

  it('answers lost after the core applied the import: no user twice, none failed', async () => {
    const set = generateUsers(60, { prefix: 'f' });
    writeNdjson(join(dir, 'users.ndjson'), withJoinDates(set.users));
    const core = await startCore();
    proxy = await startFaultProxy({
      target: core.url,
      faultRate: 0.25,
      seed: 7,
      faults: ['reset-after-forward', 'garbage-after-forward', '503'],
    });
    const r = await cli(['run', 'users.ndjson', '--core', proxy.url, '--yes', '--via', 'bulk', '--journal', 'j.ndjson', '--json'], dir);
    expect(r.exitCode, r.stderr).toBe(0);
    const s = summaryOf(r.stdout);
    expect(s).toMatchObject({ failed: 0 });
    expect((s.imported as number) + (s.alreadyPresent as number)).toBe(60);
    expect(s.imported).toBe(60);
    expect((await allUsers(client(core.url))).length).toBe(60);
  });

  it('a SIGKILL mid-run, then the same command: exact totals and no duplicate', async () => {
    const set = generateUsers(240, { prefix: 'k' });
    writeNdjson(join(dir, 'users.ndjson'), withJoinDates(set.users));
    const core = await startCore();
    proxy = await startFaultProxy({ target: core.url, latencyMs: 8 });
    const args = ['users.ndjson', '--core', proxy.url, '--yes', '--via', 'bulk', '--journal', 'j.ndjson', '--concurrency', '4', '--json'];
    const child = execa(process.execPath, [BIN, 'run', ...args], { cwd: dir, reject: false, env: cleanEnv(), extendEnv: false });
    await waitFor(() => {
      if (child.exitCode !== null) throw new Error('run ended before the kill');
      return journalUsers(join(dir, 'j.ndjson')) >= 30;
    }, 'the journal to record 30 users');
    child.kill('SIGKILL');
    expect((await child).signal).toBe('SIGKILL');
    const before = journalUsers(join(dir, 'j.ndjson'));
    expect(before).toBeLessThan(240);
    const second = await cli(['run', ...args], dir);
    expect(second.exitCode, second.stderr).toBe(0);
    const s = summaryOf(second.stdout);
    expect(s.failed).toBe(0);
    expect((s.imported as number) + (s.alreadyPresent as number)).toBe(240);
    expect(s.resumed).toBeGreaterThanOrEqual(before);
    const users = await allUsers(client(core.url));
    expect(users.length).toBe(240);
    const emails = users.flatMap((u) => u.loginMethods.filter((m) => m.recipeId === 'emailpassword').map((m) => m.email));
    expect(new Set(emails).size).toBe(emails.length);
  });

  it("a user the core refuses is in the report and the failures file with the core's message; preflight probes without writing", async () => {
    // bad1 joins in the future: the core refuses the whole user (nothing of it is written). (A user refused because
    // part of it is in the core already is completed by the per-user steps: run-bulk-partial.test.ts.)
    const good = { id: 'ok1', email: 'ok1@example.test', thirdParty: [{ providerId: 'google', userId: 'u1' }], timeJoined: JOINED };
    const bad = {
      id: 'bad1',
      email: 'bad1@example.test',
      password: { hash: '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW' },
      timeJoined: Date.now() + 365 * 86_400_000,
    };
    const good2 = { id: 'ok2', email: 'ok2@example.test', thirdParty: [{ providerId: 'google', userId: 'u2' }], timeJoined: JOINED };
    writeFileSync(join(dir, 'first.ndjson'), JSON.stringify(good) + '\n');
    writeFileSync(join(dir, 'users.ndjson'), [good2, bad].map((u) => JSON.stringify(u)).join('\n') + '\n');
    const core = await startCore();
    expect(await bulkImportOffered(client(core.url))).toBeUndefined();
    // A core before 10.0 answers 404 to the probe: named, so that run refuses --via bulk* naming --via steps.
    const old = createServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('Not found'));
    await new Promise<void>((ok) => old.listen(0, '127.0.0.1', ok));
    const oldUrl = `http://127.0.0.1:${(old.address() as AddressInfo).port}`;
    expect(await bulkImportOffered(client(oldUrl))).toBe('HTTP 404 Not found');
    old.close();
    const r0 = await cli(['run', 'first.ndjson', '--core', core.url, '--yes', '--via', 'bulk', '--journal', 'j0.ndjson', '--json'], dir);
    expect(r0.exitCode, r0.stderr).toBe(0);
    const r = await cli(['run', 'users.ndjson', '--core', core.url, '--yes', '--via', 'bulk', '--journal', 'j.ndjson', '--json'], dir);
    expect(r.exitCode).toBe(1);
    const s = summaryOf(r.stdout);
    expect(s).toMatchObject({ imported: 1, failed: 1 });
    const report = readFileSync(s.reportFile as string, 'utf8');
    expect(report).toContain('bad1');
    expect(report).toContain('timeJoined cannot be in future');
    expect(report).not.toContain('$2a$05$');
    expect((await client(core.url).listUsersByAccountInfo({ email: 'bad1@example.test' })).users).toEqual([]);
    const failures = readFileSync(s.failuresFile as string, 'utf8');
    expect(JSON.parse(failures.trim().split('\n')[0]!)).toMatchObject({ id: 'bad1' });
  });
});
