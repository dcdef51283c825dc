// `run --via bulk-staged` uploading one batch at a time, reading each claim of the core's job back while it imports
// the next (staged-early.ts) and writing those users' results meanwhile (staged-along.ts): on a sandbox whose job
// claims 1,000 rows at a time, each claim ending on a one-second grid as the reference's do, 4,000 users in 4
// uploads. The run ends exact with each user's result written once, the final read-back awaits only the users the
// early reads did not settle; with the job held after 3 of its 5 claims (a test hook of the sandbox), the journal
// and the results file hold exactly those claims' users, confirmed, while 2,000 rows still wait; killed (SIGKILL) once some results are in the journal and the job still works, the same command
// ends exact, and a rollback then removes every user the runs created. A user whose read-back step reached the
// journal without its outcome line is imported on the rerun without a request. The results are written along with
// the job both from the records a small run keeps and from a second read of a larger run's source.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { startCountProxy } from '../support/count-proxy.js';
import { allUsers, cli, client, journalEntries, LICENSE, stagedRunArgs, summaryOf, waitFor } from '../support/cli.js';
import { generateUsers, SCRYPT_SIGNER_KEY, writeNdjson } from '../support/users.js';
import type { CanonicalUser } from '../../src/records/types.js';
import { KEEP_RECORDS_UP_TO } from '../../src/records/validate.js';

vi.setConfig({ testTimeout: 180_000 });

const N = 4_000;
const JOINED = Date.UTC(2020, 0, 1);

let dir: string;
let sandbox: RunningSandbox | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-staged-early-'));
});
afterEach(async () => {
  await sandbox?.stop();
  sandbox = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/**
 * `count` users joined a minute apart in users.ndjson (then `invalid` records no rule lets through), and a sandbox whose
 * job claims 1,000 rows at a time, each claim ending on a one-second grid unless `grid` is false.
 */
async function setUp(
  prefix: string,
  { count = N, invalid = 0, grid = true }: { count?: number; invalid?: number; grid?: boolean } = {},
): Promise<{ url: string; users: CanonicalUser[] }> {
  const users = generateUsers(count, { prefix, simple: true }).users.map((u, i) => ({ ...u, timeJoined: JOINED + i * 60_000 }));
  writeNdjson(join(dir, 'users.ndjson'), users);
  if (invalid > 0) appendFileSync(join(dir, 'users.ndjson'), Array.from({ length: invalid }, (_, i) => `{"id":"bad-${i}"}\n`).join(''));
  sandbox = await startSandbox({
    store: join(dir, 'store.json'),
    licenseKey: LICENSE,
    signerKey: SCRYPT_SIGNER_KEY,
    bulkImportIntervalSec: 1,
    bulkImportBatchSize: 1000,
    // as the reference, whose job looks at a claim's workers once a second
    ...(grid ? { bulkImportClaimMs: 1000 } : {}),
    env: { AUTH_MIGRATE_SANDBOX_TEST_HOOKS: '1' },
  });
  return { url: sandbox.url, users };
}

const args = (url: string) => stagedRunArgs(url, ['--batch-size', '1000']);

const journal = () => journalEntries(join(dir, 'j.ndjson'));

/** The core holds each user once with its join date; each user's journal holds one `bulk-staged` step and one `imported`. */
async function expectExact(url: string, users: CanonicalUser[]): Promise<void> {
  const all = await allUsers(client(url));
  expect(all).toHaveLength(users.length);
  const joined = new Map(all.map((u) => [u.loginMethods[0]!.email, u.loginMethods[0]!.timeJoined]));
  for (const u of users) expect(joined.get(u.email), u.id).toBe(u.timeJoined);
  const lines = journal();
  const steps = new Map<unknown, number>();
  const imported = new Map<unknown, number>();
  for (const l of lines) {
    if (l.step === 'bulk-staged' && l.result === 'created') steps.set(l.user, (steps.get(l.user) ?? 0) + 1);
    if (l.type === 'user' && l.outcome === 'imported') imported.set(l.user, (imported.get(l.user) ?? 0) + 1);
  }
  for (const u of users) {
    expect(steps.get(u.id), u.id).toBe(1);
    expect(imported.get(u.id), u.id).toBe(1);
  }
}

const importedLines = (): number => {
  try {
    return journal().filter((l) => l.type === 'user' && l.outcome === 'imported').length;
  } catch {
    return 0;
  }
};

/** The sandbox's job takes `claims` more claims, then waits (undefined: it goes on). */
async function holdJob(url: string, claims: number | undefined): Promise<void> {
  const res = await fetch(`${url}/sandbox-test/bulk-import-hold`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(claims === undefined ? {} : { claims }),
  });
  expect(res.status).toBe(200);
}

describe('run --via bulk-staged, read back while the job works', () => {
  // A run of up to KEEP_RECORDS_UP_TO records writes its results from the records its validation kept; a larger one
  // reads the source again for them (here 21,000 invalid records after the users make it one).
  for (const [how, invalid] of [
    ['from the records kept', 0],
    ['from a second read of the source', KEEP_RECORDS_UP_TO - 4_000],
  ] as const)
    it(`writes the results of each claim while the job has later claims to take (the job held after 3 of 5), ${how}`, async () => {
      const M = 5_000;
      const { url, users } = await setUp('h', { count: M, invalid, grid: false });
      await holdJob(url, 0);
      // The tool told a long interval: a job held this long is not taken for one that stalled.
      const child = cli(stagedRunArgs(url, ['--batch-size', '1000', '--job-interval', '300']), dir);
      const waiting = async () => (await client(url).bulkImport.countUsers()).count;
      await waitFor(async () => (await waiting()) === M, 'every user staged', 120_000);
      expect(importedLines()).toBe(0); // nothing imported, nothing confirmed
      await holdJob(url, 3);
      await waitFor(() => importedLines() >= 3_000, "the results of the job's first 3 claims", 120_000);
      // The job has 2 claims still to take: the results of the first 3 were written while it works, not after it.
      expect(await waiting()).toBe(M - 3_000);
      const lines = journal();
      const imported = new Set(lines.filter((l) => l.type === 'user' && l.outcome === 'imported').map((l) => l.user));
      expect(imported).toEqual(new Set(users.slice(0, 3_000).map((u) => u.id)));
      // Each of them confirmed by a read-back: its step names the id the core answered for it.
      const confirmed = lines.filter((l) => l.step === 'bulk-staged' && l.result === 'created');
      expect(new Set(confirmed.map((l) => l.user))).toEqual(imported);
      const inCore = new Map((await allUsers(client(url))).map((u) => [u.loginMethods[0]!.email, u.id]));
      const byId = new Map(users.map((u) => [u.id, u.email]));
      for (const l of confirmed) expect((l.ids as Record<string, string>).recipeUserId).toBe(inCore.get(byId.get(l.user as string)));
      await holdJob(url, undefined);
      const r = await child;
      expect(r.exitCode, r.stderr).toBe(invalid > 0 ? 1 : 0);
      expect(summaryOf(r.stdout)).toMatchObject({ total: M + invalid, imported: M, alreadyPresent: 0, failed: 0, skipped: invalid });
      const meanwhile = /([\d,]+) of their results written/.exec(r.stderr);
      expect(meanwhile, r.stderr).not.toBeNull();
      expect(Number(meanwhile![1]!.replace(/,/g, ''))).toBeGreaterThanOrEqual(3_000);
      await expectExact(url, users);
    });

  it('uploads one batch at a time; settles most users before the job ends; each result once; exact', async () => {
    const { url, users } = await setUp('e');
    const proxy = await startCountProxy(url);
    const r = await cli(args(proxy.url), dir).finally(() => proxy.close());
    expect(r.exitCode, r.stderr).toBe(0);
    // One upload at a time: the reference's job claims rows in the order PostgreSQL stored them, and two uploads at
    // once interleave their rows there (each claim then spans the whole run, and so does the final read-back).
    expect(proxy.counts.get('POST /bulk-import/users')).toBe(N / 1000);
    expect(proxy.maxInFlight.get('POST /bulk-import/users')).toBe(1);
    const s = summaryOf(r.stdout);
    expect(s).toMatchObject({ imported: N, alreadyPresent: 0, failed: 0, skipped: 0 });
    const line = /users back .* of the ([\d,]+) users awaited; ([\d,]+) read back while the job worked/.exec(r.stderr);
    expect(line, r.stderr).not.toBeNull();
    const [awaited, early] = [Number(line![1]!.replace(/,/g, '')), Number(line![2]!.replace(/,/g, ''))];
    expect(early).toBeGreaterThanOrEqual(1000);
    expect(awaited + early).toBe(N);
    const report = readFileSync(s.reportFile as string, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; outcome: string });
    expect(report).toHaveLength(N);
    expect(new Set(report.map((x) => x.id)).size).toBe(N);
    expect(report.every((x) => x.outcome === 'imported')).toBe(true);
    await expectExact(url, users);
  });

  it('killed once some results are written and the job still works: the same command ends exact; rollback removes all', async () => {
    const { url, users } = await setUp('k');
    // The job held after 2 of its 4 claims, so that results are written while it still has work on a loaded
    // machine too (the run told a long interval: held, it is not taken for a job that stalled).
    await holdJob(url, 2);
    const child = cli(stagedRunArgs(url, ['--batch-size', '1000', '--job-interval', '300']), dir);
    const importedSoFar = importedLines;
    await waitFor(
      async () => importedSoFar() > 0 && (await client(url).bulkImport.countUsers()).count > 0,
      'results written while the job works',
      120_000,
    );
    await holdJob(url, undefined); // the job goes on, and the run is killed while it works
    child.kill('SIGKILL');
    expect((await child).signal).toBe('SIGKILL');
    const before = importedSoFar();
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(N);

    const second = await cli(args(url), dir);
    expect(second.exitCode, second.stderr).toBe(0);
    const s = summaryOf(second.stdout);
    expect(s).toMatchObject({ failed: 0, skipped: 0 });
    expect((s.imported as number) + (s.alreadyPresent as number)).toBe(N);
    expect(s.alreadyPresent).toBeGreaterThanOrEqual(before); // finished by the killed run: not settled again
    await expectExact(url, users);

    const undo = await cli(['rollback', '--journal', 'j.ndjson', '--yes', '--core', url, '--json'], dir);
    expect(undo.exitCode, undo.stdout + undo.stderr).toBe(0);
    expect(await allUsers(client(url))).toEqual([]);
  });

  it('a user read back whose outcome line was lost: the rerun finishes it as imported, sends nothing', async () => {
    const { url } = await setUp('o');
    const first = await cli(args(url), dir);
    expect(first.exitCode, first.stderr).toBe(0);
    const path = join(dir, 'j.ndjson');
    // Each user's outcome taken off its read-back step's line (where it shares it) or dropped (its own line).
    const kept = readFileSync(path, 'utf8')
      .split('\n')
      .flatMap((l) => {
        if (!l.includes('"outcome":"imported"')) return [l];
        const { outcome: _o, fp: _f, ...rest } = JSON.parse(l) as Record<string, unknown>;
        return rest.step === 'bulk-staged' ? [JSON.stringify(rest)] : [];
      });
    writeFileSync(path, kept.join('\n'));
    expect(journal().filter((l) => l.type === 'user' && l.outcome === 'imported')).toHaveLength(0);
    const second = await cli(args(url), dir);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(summaryOf(second.stdout)).toMatchObject({ imported: N, alreadyPresent: 0, failed: 0, resumed: N });
    expect(second.stderr).not.toMatch(/waiting for the core's bulk-import job|reading the core's users back/); // nothing staged
    expect(journal().filter((l) => l.type === 'user' && l.outcome === 'imported')).toHaveLength(N);
  });
});
