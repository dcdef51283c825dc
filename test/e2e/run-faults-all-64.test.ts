// Issue 20's bar on the sandbox: every fault mode at 5% at once (a write applied then answered 500, a 500 before
// applying, a consume that uses up the code and creates no user, a login created and left unverified, lookups
// answered 500) at --concurrency 64: 2,000 mixed users end exact (one core user per source user, with its links and
// devices, read back by `verify`, no unverified login), exit 0; and a rollback of them under the same faults is exact.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { createCoreClient } from '../../src/core-client/client.js';
import { allUsers, cli, LICENSE, summaryOf } from '../support/cli.js';
import { generateUsers, SCRYPT_SIGNER_KEY, writeNdjson } from '../support/users.js';

const USERS = 2000;
let dir: string;
let sandbox: RunningSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-faults64-'));
  writeNdjson(join(dir, 'users.ndjson'), generateUsers(USERS, { prefix: 'f' }).users);
  sandbox = await startSandbox({
    store: join(dir, 'store.json'),
    licenseKey: LICENSE,
    signerKey: SCRYPT_SIGNER_KEY,
    faults: 'before=0.05,after=0.05,partial=0.05,unverified=0.05,reads=0.05,seed=31',
  });
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('every fault mode at 5%, concurrency 64', () => {
  it(`${USERS} mixed users end exact, verify all ok`, { timeout: 300_000 }, async () => {
    const r = await cli(
      ['run', 'users.ndjson', '--core', sandbox.url, '--yes', '--concurrency', '64', '--journal', 'j.ndjson', '--json', '--json-events'],
      dir,
    );
    expect(
      r.exitCode,
      r.stderr
        .split('\n')
        .filter((l) => !l.startsWith('{'))
        .join('\n')
        .slice(-2000),
    ).toBe(0);
    expect(summaryOf(r.stdout)).toMatchObject({ total: USERS, imported: USERS, alreadyPresent: 0, failed: 0, skipped: 0 });
    // The faults happened: 500s on writes and on lookups.
    const retried = r.stderr.split('\n').filter((l) => l.includes('"type":"retry"') && l.includes('HTTP 500'));
    // Lookups: fewer since --via steps learns what the core holds in bulk (1d4e406) and skips the look-up of a user
    // known absent; on a quiet machine about 400 GETs remain (about 20 faulted at 5%), under load the skipper turns
    // itself off and there are many more. More than 5 is far below either and still fails if reads are not faulted.
    expect(retried.filter((l) => l.includes('"method":"GET"')).length).toBeGreaterThan(5);
    expect(retried.filter((l) => l.includes('"method":"POST"')).length).toBeGreaterThan(50);
    // The sandbox still fails 5% of lookups (reads=0.05): the read-back retries, as the tool's own requests do.
    const reader = createCoreClient({ url: sandbox.url, retry: { retries: 10, baseDelayMs: 1, maxDelayMs: 10 } });
    expect((await allUsers(reader)).length).toBe(USERS);
    const v = await cli(['verify', 'users.ndjson', '--core', sandbox.url, '--journal', 'j.ndjson', '--json'], dir);
    const doc = summaryOf(v.stdout);
    expect(doc.problems, JSON.stringify(doc.problems).slice(0, 1500)).toEqual([]);
    expect(doc).toMatchObject({ total: USERS, ok: USERS });
  });

  it(
    'a rollback of them, under the same faults, is exact: every user removed and read back, none failed',
    { timeout: 300_000 },
    async () => {
      const r = await cli(['rollback', '--journal', 'j.ndjson', '--yes', '--concurrency', '16', '--json'], dir);
      expect(r.exitCode, r.stderr.slice(-2000)).toBe(0);
      expect(summaryOf(r.stdout)).toMatchObject({ removed: USERS, kept: 0, failed: 0 });
      // Read back through a retrying client: the sandbox still fails 5% of lookups.
      const reader = createCoreClient({ url: sandbox.url, retry: { retries: 10, baseDelayMs: 1, maxDelayMs: 10 } });
      expect(await allUsers(reader)).toEqual([]);
    },
  );
});
