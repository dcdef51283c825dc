// `run --via bulk-staged` killed (SIGKILL) at the moments that matter (issue 24): between the write-ahead and the
// core's answer to the upload, between the upload and the job, and while the run reads the core back. Each time
// the same command then ends exact: every user once, nothing staged twice or left in the list, the users the
// killed run staged counted as imported by this migration (so verify checks their join dates and rollback
// removes them: a rollback after it leaves the core as it was).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { allUsers, cli, client, journalEntries, LICENSE, stagedRunArgs, summaryOf, waitFor } from '../support/cli.js';
import { generateUsers, SCRYPT_SIGNER_KEY, writeNdjson } from '../support/users.js';
import type { CanonicalUser } from '../../src/records/types.js';

// Each test starts a core (twice for some) and runs the CLI two or three times: room for a loaded machine.
vi.setConfig({ testTimeout: 150_000 });

let dir: string;
let sandbox: RunningSandbox | undefined;
let proxy: FaultProxy | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-staged-kill-'));
});
afterEach(async () => {
  await proxy?.stop();
  proxy = undefined;
  await sandbox?.stop();
  sandbox = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const JOINED = Date.UTC(2019, 2, 1);
/** Every other user has a join date; the others join when the run stages them (the journal keeps that time). */
const someJoinDates = (users: CanonicalUser[]): CanonicalUser[] =>
  users.map((u, i) => (i % 2 === 0 ? { ...u, timeJoined: JOINED + i * 3_600_000 } : u));

async function startCore(intervalSec: number, port = 0): Promise<RunningSandbox> {
  sandbox = await startSandbox({
    port,
    store: join(dir, 'store.json'),
    licenseKey: LICENSE,
    signerKey: SCRYPT_SIGNER_KEY,
    bulkImportIntervalSec: intervalSec,
  });
  return sandbox;
}

const staged = async (url: string): Promise<number> => (await client(url).bulkImport.countUsers()).count;
const journalHas = (what: RegExp) => () => {
  try {
    return what.test(readFileSync(join(dir, 'j.ndjson'), 'utf8'));
  } catch {
    return false;
  }
};

const startRun = (url: string, extra: string[] = []) => cli(stagedRunArgs(url, extra), dir);

/** The core holds each user once, and every user's journal ends settled as created by this migration. */
async function expectExact(url: string, users: CanonicalUser[]): Promise<void> {
  const core = client(url);
  const all = await allUsers(core);
  expect(all).toHaveLength(users.length);
  const emails = all.flatMap((u) => u.loginMethods.map((m) => m.email));
  expect(new Set(emails).size).toBe(emails.length);
  expect(await staged(url)).toBe(0);
  const lines = journalEntries(join(dir, 'j.ndjson'));
  for (const u of users) {
    const settled = lines.filter((l) => l.user === u.id && l.step === 'bulk-staged');
    expect(
      settled.map((l) => l.result),
      u.id,
    ).toEqual(['created']);
  }
  core.close();
}

describe('run --via bulk-staged, killed and run again', () => {
  it('killed between the upload and the job: the rerun counts those users imported by this run; verify and rollback agree', async () => {
    const users = someJoinDates(generateUsers(30, { prefix: 'a', simple: true }).users);
    writeNdjson(join(dir, 'users.ndjson'), users);
    let core = await startCore(3600);
    const child = startRun(core.url, ['--job-interval', '3600']);
    await waitFor(async () => (await staged(core.url)) === 30, 'the users staged');
    child.kill('SIGKILL');
    expect((await child).signal).toBe('SIGKILL');
    // The job runs (the core restarted on the same store and port) and imports what the killed run staged.
    await core.stop();
    core = await startCore(1, core.port);
    await waitFor(async () => (await allUsers(client(core.url))).length === 30, 'the job to import the staged users');

    const second = await cli(stagedRunArgs(core.url), dir);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(summaryOf(second.stdout)).toMatchObject({ imported: 30, alreadyPresent: 0, failed: 0 });
    await expectExact(core.url, users);
    const v = await cli(['verify', 'users.ndjson', '--core', core.url, '--journal', 'j.ndjson', '--json'], dir);
    expect(v.exitCode, v.stdout + v.stderr).toBe(0);
    expect(summaryOf(v.stdout)).toMatchObject({ ok: 30, missing: 0, mismatch: 0 });

    const undo = await cli(['rollback', '--journal', 'j.ndjson', '--yes', '--core', core.url, '--json'], dir);
    expect(undo.exitCode, undo.stdout + undo.stderr).toBe(0);
    expect(await allUsers(client(core.url))).toEqual([]);
  });

  it('killed after the write-ahead while the upload is on its way: the rerun stages nothing twice', async () => {
    const users = someJoinDates(generateUsers(30, { prefix: 'b', simple: true }).users);
    writeNdjson(join(dir, 'users.ndjson'), users);
    const core = await startCore(1);
    // The upload reaches the core a second after it left: the run is killed in between.
    proxy = await startFaultProxy({ target: core.url, delayFor: (m, p) => (m === 'POST' && p === '/bulk-import/users' ? 1000 : 0) });
    const child = startRun(proxy.url);
    await waitFor(journalHas(/"staged":/), 'the write-ahead lines');
    child.kill('SIGKILL');
    expect((await child).signal).toBe('SIGKILL');
    expect(readFileSync(join(dir, 'j.ndjson'), 'utf8')).not.toMatch(/"bulk-staged"/);

    const second = await cli(stagedRunArgs(proxy.url), dir);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(summaryOf(second.stdout)).toMatchObject({ imported: 30, alreadyPresent: 0, failed: 0 });
    expect(readFileSync(summaryOf(second.stdout).failuresFile as string, 'utf8')).toBe('');
    await expectExact(core.url, users);
  });

  it('killed while reading the core back: the rerun settles every user as imported by this run', async () => {
    const users = someJoinDates(generateUsers(30, { prefix: 'c', simple: true }).users);
    writeNdjson(join(dir, 'users.ndjson'), users);
    const core = await startCore(1);
    proxy = await startFaultProxy({ target: core.url, delayFor: (m, p) => (m === 'GET' && p === '/users' ? 300 : 0) });
    const child = startRun(proxy.url);
    let stderr = '';
    child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
    await waitFor(() => /reading the core's users back/.test(stderr), 'the read-back');
    child.kill('SIGKILL');
    expect((await child).signal).toBe('SIGKILL');
    expect((await allUsers(client(core.url))).length).toBe(30);

    const second = await cli(stagedRunArgs(proxy.url), dir);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(summaryOf(second.stdout)).toMatchObject({ imported: 30, alreadyPresent: 0, failed: 0 });
    expect(proxy.stats.log.filter((l) => l === 'POST /bulk-import/users')).toHaveLength(1);
    await expectExact(core.url, users);
  });
});
