// What a lost answer leaves is the run's (issue 20, the rollback engineer's finding in 681770e): the sandbox applies
// some writes and answers 500 (`after`), or answers 500 without applying them (`before`); the client retries and
// meets "already exists / already linked / already primary". Every TOTP device, primary flag, link and mapping the
// run made is journalled 'created' (on users it created and on users that were there before), so a rollback takes
// exactly those off; what the app had given a user before the run (a device of the same name and settings) is
// 'already' and stays. Read back user by user after the rollback.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoreClient } from '../../src/core-client/client.js';
import type { CanonicalUser } from '../../src/records/types.js';
import { readJournalSteps, stepsOf } from '../../src/engine/rollback/made.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { allUsers, cli, client, LICENSE, summaryOf } from '../support/cli.js';
import { writeNdjson } from '../support/users.js';

const HASH = '$2a$04$0ufm6TCF8gqYSgGO5bplBOzCClCYVYWX3r4Kb9/SoLAgLePE3ENsy';
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const OLD = 30;
const NEW = 20;
const ADDED_STEP = /^(map|primary|link:|totp:)/;

let dir: string;
let sandbox: RunningSandbox | undefined;
/** Old users to whom the app gave the device the export names (same name and settings) before the run. */
const appDevice = (id: string) => id.startsWith('old') && Number(id.slice(3)) % 2 === 0;
// (No external id for those: the core maps no id onto a user that holds a TOTP device, "UserId is already in use in
// TOTP recipe", the reference's UserIdMapping.java too.)
const record = (id: string): CanonicalUser => ({
  id,
  email: `${id}@example.test`,
  password: { hash: HASH },
  ...(appDevice(id) ? {} : { externalUserId: `ext-${id}` }),
  thirdParty: [{ providerId: 'google', userId: `google-${id}`, emailVerified: true }],
  totp: [{ secret: SECRET, deviceName: 'phone' }],
});
const olds = Array.from({ length: OLD }, (_, i) => `old${i}`);
const news = Array.from({ length: NEW }, (_, i) => `new${i}`);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-lost-answers-'));
  const store = join(dir, 'store.json');
  // The users there before, made through the core without faults; then the same store with faults.
  sandbox = await startSandbox({ store, licenseKey: LICENSE });
  const core = client(sandbox.url);
  for (const id of olds) {
    const r = await core.importPasswordHash({ email: `${id}@example.test`, passwordHash: HASH });
    if (appDevice(id)) await core.importTotpDevice({ userId: r.user.id, deviceName: 'phone', secretKey: SECRET, period: 30, skew: 1 });
  }
  core.close();
  await sandbox.stop();
  sandbox = await startSandbox({ store, licenseKey: LICENSE, faults: 'before=0.1,after=0.2,seed=11' });
  writeNdjson(join(dir, 'users.ndjson'), [...olds, ...news].map(record));
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('lost answers under sandbox faults', () => {
  it("journals what the run made as 'created' and what was there before as 'already'; the rollback leaves exactly the users there before, as they were", async () => {
    const url = sandbox!.url;
    const r = await cli(
      ['run', 'users.ndjson', '--core', url, '--yes', '--journal', 'j.ndjson', '--concurrency', '8', '--json', '--json-events'],
      dir,
    );
    const plain = r.stderr
      .split('\n')
      .filter((l) => !l.startsWith('{'))
      .join('\n');
    const failed = () =>
      readFileSync(join(dir, 'j.report.ndjson'), 'utf8')
        .split('\n')
        .filter((l) => l.includes('"failed"'))
        .slice(0, 10)
        .join('\n');
    expect(r.exitCode, plain.slice(-500) + failed()).toBe(0);
    expect(summaryOf(r.stdout)).toMatchObject({ total: OLD + NEW, failed: 0 });
    // Answers were lost: writes retried after a 500.
    const retried = r.stderr.split('\n').filter((l) => l.includes('"type":"retry"') && l.includes('HTTP 500') && l.includes('"POST"'));
    expect(retried.length).toBeGreaterThan(20);

    const journal = await readJournalSteps(join(dir, 'j.ndjson'));
    const wrong: string[] = [];
    for (const id of [...olds, ...news]) {
      const steps = stepsOf(journal.users.get(id)!);
      expect(steps.get('password')?.result, id).toBe(id.startsWith('old') ? 'already' : 'created');
      const added = [...steps].filter(([key]) => ADDED_STEP.test(key));
      expect(added.length, `${id}: ${[...steps.keys()].join(' ')}`).toBe(appDevice(id) ? 3 : 4);
      for (const [key, step] of added) {
        const want = key.startsWith('totp:') && appDevice(id) ? 'already' : 'created';
        if (step.result !== want) wrong.push(`${id} ${key}: ${step.result}, not ${want}`);
      }
    }
    expect(wrong).toEqual([]);

    const back = await cli(['rollback', '--journal', 'j.ndjson', '--yes', '--json'], dir);
    expect(back.exitCode, back.stderr.slice(-2000)).toBe(0);
    expect(summaryOf(back.stdout)).toMatchObject({ removed: NEW, undone: OLD, kept: 0, failed: 0 });

    // Read back (writes are faulted, lookups are not): the users there before, each exactly as it was.
    const core = createCoreClient({ url, retry: { retries: 10, baseDelayMs: 1, maxDelayMs: 10 } });
    try {
      const users = await allUsers(core);
      expect(users.map((u) => u.emails[0]).sort()).toEqual(olds.map((id) => `${id}@example.test`).sort());
      for (const u of users) {
        const id = u.emails[0]!.split('@')[0]!;
        expect(
          u.loginMethods.map((m) => m.recipeId),
          id,
        ).toEqual(['emailpassword']);
        expect(u.isPrimaryUser, id).toBe(false);
        expect((await core.getUserIdMapping(`ext-${id}`, 'EXTERNAL')).status, id).toBe('UNKNOWN_MAPPING_ERROR');
        const devices = (await core.listTotpDevices(u.id)).devices.map((d) => d.name);
        expect(devices, id).toEqual(appDevice(id) ? ['phone'] : []);
      }
    } finally {
      core.close();
    }
  }, 180_000);
});
