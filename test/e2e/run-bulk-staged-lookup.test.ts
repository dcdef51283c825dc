// `run --via bulk-staged` into a core many times larger than the run (issue 24: a 1,000-user run into a core of
// 200,000 read the whole core for 26-30 s on the reference before its one upload): the core's users are counted
// (GET /users/count), and with more than 10 per user to migrate each of the run's users is looked up
// (GET /users/by-accountinfo, GET /user/id for an external id) instead of every page of the core being read. The
// users it holds go to the per-user steps as before; the others are staged; the proof is still the read-back.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { allUsers, cli, client, LICENSE, summaryOf } from '../support/cli.js';
import { generateUsers, SCRYPT_SIGNER_KEY, writeNdjson } from '../support/users.js';
import type { CanonicalUser } from '../../src/records/types.js';

vi.setConfig({ testTimeout: 150_000 });

let dir: string;
let sandbox: RunningSandbox | undefined;
let proxy: FaultProxy | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-staged-lookup-'));
});
afterEach(async () => {
  await proxy?.stop();
  await sandbox?.stop();
  proxy = undefined;
  sandbox = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const JOINED = Date.UTC(2019, 2, 1);
const DAY = 86_400_000;
const dated = (users: CanonicalUser[], from: number): CanonicalUser[] => users.map((u, i) => ({ ...u, timeJoined: from + i * DAY }));
const staged = (extra: string[] = []) => ['--via', 'bulk-staged', '--job-interval', '1', '--json', ...extra];

describe('run --via bulk-staged into a core many times larger than the run', () => {
  it('looks each user up instead of reading the core; held users go to the steps, the rest are staged and read back', async () => {
    sandbox = await startSandbox({
      store: join(dir, 'store.json'),
      licenseKey: LICENSE,
      signerKey: SCRYPT_SIGNER_KEY,
      bulkImportIntervalSec: 1,
    });
    const before = dated(generateUsers(66, { prefix: 'a' }).users, JOINED);
    writeNdjson(join(dir, 'before.ndjson'), before);
    const first = await cli(['run', 'before.ndjson', '--core', sandbox.url, '--yes', '--journal', 'j1.ndjson', ...staged()], dir);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(summaryOf(first.stdout)).toMatchObject({ imported: 66, failed: 0 });
    // A first run into a small core reads it (one page): it is not looked up user by user.
    expect(first.stderr).not.toMatch(/is looked up instead/);

    // Six users: four new ones, one already there by its email, one by its external id only (its email is new).
    const fresh = dated(generateUsers(4, { prefix: 'b', simple: true }).users, JOINED + 400 * DAY);
    const byEmail = before.find((u) => u.email && u.password && !u.externalUserId)!;
    const byExternal = before.find((u) => u.externalUserId && u.email && u.password && !u.thirdParty && !u.totp)!;
    const later: CanonicalUser[] = [...fresh, byEmail, { ...byExternal, id: 'moved', email: 'moved@example.test' }];
    writeNdjson(join(dir, 'later.ndjson'), later);
    proxy = await startFaultProxy({ target: sandbox.url });
    const r = await cli(['run', 'later.ndjson', '--core', proxy.url, '--yes', '--journal', 'j2.ndjson', ...staged()], dir);
    // Held users went to the per-user steps as with a listing: one is there; the other's external id is held by a
    // user without its new email, which the steps leave as the core has it (changed since the export).
    expect(summaryOf(r.stdout), r.stderr).toMatchObject({ total: 6, imported: 4, alreadyPresent: 2, failed: 0 });
    const moved = readFileSync(join(dir, 'j2.report.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; message?: string })
      .find((l) => l.id === 'moved');
    expect(moved?.message).toContain('changed in the core since the export');
    expect(r.stderr).toMatch(/the core holds 66 users, more than 10 for each user of this run: each of the run's users is looked up/);

    const log = proxy.stats.log;
    expect(log.filter((l) => l === 'GET /users/count').length).toBeGreaterThanOrEqual(1);
    expect(log.filter((l) => l === 'POST /bulk-import/users')).toHaveLength(1);
    // No page of the whole core: only the read-back of the staged users' join times (a token probe and a page).
    expect(log.filter((l) => l === 'GET /users').length).toBeLessThanOrEqual(2);
    // One by-accountinfo per user before staging (six), more from the per-user steps of the two held users.
    expect(log.filter((l) => l === 'GET /users/by-accountinfo').length).toBeGreaterThanOrEqual(6);

    const c = client(sandbox.url);
    const all = await allUsers(c);
    expect(all.length).toBe(70);
    for (const u of fresh) {
      const held = all.find((x) => x.loginMethods.some((m) => m.email === u.email));
      expect(held?.timeJoined, u.id).toBe(u.timeJoined);
    }
    expect(all.some((x) => x.loginMethods.some((m) => m.email === 'moved@example.test'))).toBe(false);
    c.close();
  });
});
