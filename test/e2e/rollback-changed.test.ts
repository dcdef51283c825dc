// `auth-migrate rollback` removes exactly what the run made, on every --via path, and nothing anyone did since
// (issue 20, points 7 and 8): after a run by steps, bulk and bulk-staged, users are changed through the core's HTTP
// API as a live app would (a GitHub login linked, a TOTP device added, an email changed); the dry run and the
// rollback keep those users (listed, with why) and every user that was there before, and remove the rest, read back
// user by user. --force then takes the run's own part off the changed users and leaves what the app added.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreClient, CoreUser } from '../../src/core-client/types.js';
import type { CanonicalUser } from '../../src/records/types.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { allUsers, cli, client, LICENSE, summaryOf } from '../support/cli.js';
import { SCRYPT_SIGNER_KEY, writeNdjson } from '../support/users.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
const SECRET = 'JBSWY3DPEHPK3PXP';
let dir: string;
let sandbox: RunningSandbox;
let core: CoreClient;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-rollback-changed-'));
  sandbox = await startSandbox({
    store: join(dir, 'store.json'),
    licenseKey: LICENSE,
    signerKey: SCRYPT_SIGNER_KEY,
    bulkImportIntervalSec: 1,
  });
  core = client(sandbox.url);
});
afterAll(async () => {
  core?.close();
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The users of one path's export: a-c are changed after the run, d-f are not; `pre` was there before. */
function exportOf(p: string): CanonicalUser[] {
  const pw = { hash: BCRYPT };
  return [
    { id: `${p}a`, email: `${p}a@example.test`, password: pw, thirdParty: [{ providerId: 'google', userId: `g-${p}a` }] },
    { id: `${p}b`, email: `${p}b@example.test`, password: pw, totp: [{ secret: SECRET, deviceName: 'phone' }] },
    { id: `${p}c`, email: `${p}c@example.test`, password: pw },
    {
      id: `${p}d`,
      email: `${p}d@example.test`,
      password: pw,
      externalUserId: `${p}-ext-d`,
      totp: [{ secret: SECRET, deviceName: 'phone' }],
    },
    { id: `${p}e`, phoneNumber: `+1415555${p === 'st' ? '01' : p === 'bk' ? '02' : '03'}00` },
    { id: `${p}f`, email: `${p}f@example.test`, password: pw, thirdParty: [{ providerId: 'github', userId: `gh-${p}f` }] },
    { id: `${p}pre`, email: `${p}pre@example.test`, password: pw },
  ];
}

const byEmail = async (email: string): Promise<CoreUser | undefined> => (await core.listUsersByAccountInfo({ email })).users[0];

/** Everything about the users that were there before, to compare before and after. */
async function snapshot(users: CoreUser[]): Promise<string> {
  const out = [];
  for (const u of users) {
    const now = await core.getUserById(u.id);
    out.push(now.status === 'OK' ? { ...now.user, devices: (await core.listTotpDevices(u.id)).devices.map((d) => d.name) } : 'gone');
  }
  return JSON.stringify(out);
}

describe.each([
  ['steps', 'st'],
  ['bulk', 'bk'],
  ['bulk-staged', 'bs'],
])('rollback after --via %s', (via, p) => {
  it('keeps users changed since the run and the users there before, removes the rest (read back one by one)', async () => {
    // There before the run: one user the export does not name, one it names (found present, left as it is).
    const other = await core.importPasswordHash({ email: `${p}-other@example.test`, passwordHash: BCRYPT });
    const pre = await core.importPasswordHash({ email: `${p}pre@example.test`, passwordHash: BCRYPT });
    const before = await snapshot([other.user, pre.user]);
    writeNdjson(join(dir, `${p}.ndjson`), exportOf(p));
    const journal = `${p}.journal.ndjson`;
    const run = await cli(['run', `${p}.ndjson`, '--core', sandbox.url, '--yes', '--via', via, '--journal', journal, '--json'], dir);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(summaryOf(run.stdout)).toMatchObject({ imported: 6, alreadyPresent: 1, failed: 0 });

    // A live app changes three users: a GitHub login linked to a, a device added to b, c's email changed.
    const a = (await byEmail(`${p}a@example.test`))!;
    const gh = await core.thirdPartySignInUp({
      thirdPartyId: 'github',
      thirdPartyUserId: `gh-${p}a`,
      email: { id: `${p}a-gh@example.test`, isVerified: true },
    });
    expect(gh.status).toBe('OK');
    const ghId = gh.status === 'OK' ? gh.recipeUserId : '';
    expect((await core.linkAccounts(ghId, a.id)).status).toBe('OK');
    const b = (await byEmail(`${p}b@example.test`))!;
    expect((await core.importTotpDevice({ userId: b.id, deviceName: 'laptop', secretKey: SECRET, period: 30, skew: 1 })).status).toBe('OK');
    const c = (await byEmail(`${p}c@example.test`))!;
    await core.raw({ method: 'PUT', path: '/recipe/user', scope: 'app', body: { recipeUserId: c.id, email: `${p}c-new@example.test` } });

    const dry = await cli(['rollback', '--journal', journal, '--dry-run'], dir);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(new RegExp(`user ${p}a: kept, changed since the run: a github login was added since`));
    expect(dry.stdout).toMatch(new RegExp(`user ${p}b: kept, changed since the run: TOTP device "laptop" was added since`));
    expect(dry.stdout).toMatch(new RegExp(`user ${p}c: kept, changed since the run: the email \\(or phone\\) of an emailpassword login`));
    expect(dry.stdout).toContain("dry run: would remove 3 users, would undo the run's additions on 0 users there before, would keep 3");
    expect(dry.stdout).not.toMatch(new RegExp(`user ${p}pre:`));

    // Without a target: the run's own, from the journal.
    const r = await cli(['rollback', '--journal', journal, '--yes', '--json'], dir);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain("(the run's, from its journal)");
    expect(summaryOf(r.stdout)).toMatchObject({ removed: 3, kept: 3, failed: 0 });
    expect(r.stderr).toMatch(new RegExp(`kept: user ${p}a: changed since the run: a github login was added since`));

    // Read back user by user: the changed ones whole, with what the app added; the others gone, mapping too.
    const aNow = (await byEmail(`${p}a@example.test`))!;
    expect(aNow.loginMethods.map((m) => m.recipeId).sort()).toEqual(['emailpassword', 'thirdparty', 'thirdparty']);
    expect((await core.listTotpDevices((await byEmail(`${p}b@example.test`))!.id)).devices.map((d) => d.name).sort()).toEqual([
      'laptop',
      'phone',
    ]);
    expect(await byEmail(`${p}c-new@example.test`)).toBeDefined();
    for (const gone of ['d', 'f']) expect(await byEmail(`${p}${gone}@example.test`)).toBeUndefined();
    expect((await core.listUsersByAccountInfo({ phoneNumber: exportOf(p)[4]!.phoneNumber! })).users).toEqual([]);
    expect((await core.getUserIdMapping(`${p}-ext-d`, 'EXTERNAL')).status).toBe('UNKNOWN_MAPPING_ERROR');
    expect(await snapshot([other.user, pre.user])).toBe(before);

    // --force: the run's own logins, devices and mapping go from the changed users; the GitHub login the app
    // linked stays, as does nothing else of the run's.
    const forced = await cli(['rollback', '--journal', journal, '--yes', '--force', '--json'], dir);
    expect(forced.exitCode, forced.stderr).toBe(0);
    expect(summaryOf(forced.stdout)).toMatchObject({ removed: 3, kept: 0, failed: 0 });
    const ghNow = (await core.listUsersByAccountInfo({ thirdPartyId: 'github', thirdPartyUserId: `gh-${p}a` })).users;
    expect(ghNow.length).toBe(1);
    expect(ghNow[0]!.loginMethods.map((m) => m.recipeId)).toEqual(['thirdparty']);
    for (const gone of ['a', 'b', 'c-new']) expect(await byEmail(`${p}${gone}@example.test`)).toBeUndefined();
    expect(await snapshot([other.user, pre.user])).toBe(before);
    // Left: the two there before and the GitHub login, for this path.
    const mine = (await allUsers(core)).filter((u) => u.loginMethods.some((m) => (m.email ?? '').startsWith(p)));
    expect(mine.length).toBe(3);
  });
});
