// No answer believed on its word (issue 31, item 6): a proxy in front of the core that answers some writes with
// another request's earlier 200 body (`replay`) or with a bare `{"status":"OK"}` (`bareok`), applying nothing.
// Rehearsed with the sandbox's fault modes at 3% each, on the steps path and on `--via bulk`, 900 mixed users:
//  - no user the run reports imported (or already present) is missing from the core or held wrongly: `verify`
//    (login methods, external id mappings, TOTP devices, verified flags) finds no problem with any of them, and the
//    id the run reports for the user is a core user holding the export's login;
//  - the same command without the faults ends exact (`verify` all ok, one core user per source user);
//  - neither run jams (each ends within its time limit).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CanonicalUser } from '../../src/records/types.js';
import { startSandbox } from '../../src/sandbox/spawn.js';
import { allUsers, cli, client, LICENSE, summaryOf } from '../support/cli.js';
import { generateUsers, SCRYPT_SIGNER_KEY, writeNdjson } from '../support/users.js';

const USERS = 900;
/** Each run's bound: a run that waits on an answer that never comes, or retries for ever, fails the test. */
const RUN_MS = 150_000;
let dir: string;
let records: Map<string, CanonicalUser>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-proxy-answers-'));
  const users = generateUsers(USERS, { prefix: 'r' }).users;
  records = new Map(users.map((u) => [u.id, u]));
  writeNdjson(join(dir, 'users.ndjson'), users);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Reported {
  id: string;
  outcome: string;
  userId?: string;
}

/** The users a `--json-events` run reported, from its `user-done` events. */
function reported(stderr: string): Reported[] {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('{') && l.includes('"type":"user-done"'))
    .map((l) => (JSON.parse(l) as { result: Reported }).result);
}

/** Whether the core user holds the record's first login (the one the run creates first). */
function holdsFirstLogin(user: { loginMethods: Array<Record<string, unknown>> }, r: CanonicalUser): boolean {
  return user.loginMethods.some((lm) => {
    if (r.password) return lm.recipeId === 'emailpassword' && lm.email === r.email;
    const tp = r.thirdParty?.[0];
    if (tp) return lm.recipeId === 'thirdparty' && (lm.thirdParty as { userId?: string })?.userId === tp.userId;
    return lm.recipeId === 'passwordless' && lm.phoneNumber === r.phoneNumber;
  });
}

async function rehearse(via: 'steps' | 'bulk' | 'bulk-staged', seed: number): Promise<void> {
  const store = join(dir, `${via}.json`);
  // bulk-staged: uploads of 10 users (90 of them, so that some meet a replayed body or a bare OK), the job every second.
  const staged = via === 'bulk-staged' ? ['--batch-size', '10', '--job-interval', '1'] : [];
  const args = [
    'run',
    'users.ndjson',
    '--via',
    via,
    ...staged,
    '--concurrency',
    '16',
    '--journal',
    `${via}.journal`,
    '--json',
    '--json-events',
  ];
  const bulkImportIntervalSec = via === 'bulk-staged' ? 1 : undefined;
  let port = 0;
  const faulty = await startSandbox({
    store,
    bulkImportIntervalSec,
    licenseKey: LICENSE,
    signerKey: SCRYPT_SIGNER_KEY,
    faults: `replay=0.03,bareok=0.03,seed=${seed}`,
  });
  port = faulty.port;
  try {
    const r = await cli([...args, '--core', faulty.url, '--yes'], dir);
    // Users may fail (an answer that names another user, four times in a row); the run itself must end.
    expect([0, 1], r.stderr.slice(-2000)).toContain(r.exitCode);
    const results = reported(r.stderr);
    expect(results.length).toBe(USERS);
    const claimed = results.filter((u) => u.outcome === 'imported' || u.outcome === 'alreadyPresent');
    expect(claimed.length).toBeGreaterThan(USERS / 2);
    // verify reads every user from the core (the sandbox's faults only touch writes).
    const v = await cli(['verify', 'users.ndjson', '--core', faulty.url, '--journal', `${via}.journal`, '--json'], dir);
    const problems = (JSON.parse(v.stdout) as { problems: Array<{ id: string; outcome: string; issues?: unknown }> }).problems;
    const claimedIds = new Set(claimed.map((u) => u.id));
    expect(problems.filter((p) => claimedIds.has(p.id))).toEqual([]);
    // The id the run reports is the core's user holding that record's login (not another user's answer).
    const core = client(faulty.url);
    const wrong: string[] = [];
    for (const u of claimed) {
      const got = u.userId === undefined ? undefined : await core.getUserById(u.userId);
      if (got?.status !== 'OK' || !holdsFirstLogin(got.user as never, records.get(u.id)!)) wrong.push(`${u.id} -> ${u.userId}`);
    }
    expect(wrong).toEqual([]);
  } finally {
    await faulty.stop();
  }
  // The same command without the faults ends exact (the same core: its store, on the same port).
  const clean = await startSandbox({ store, port, bulkImportIntervalSec, licenseKey: LICENSE, signerKey: SCRYPT_SIGNER_KEY });
  try {
    const again = await cli([...args, '--core', clean.url, '--yes'], dir);
    expect(again.exitCode, again.stderr.slice(-2000)).toBe(0);
    expect(summaryOf(again.stdout)).toMatchObject({ total: USERS, failed: 0 });
    const v = await cli(['verify', 'users.ndjson', '--core', clean.url, '--journal', `${via}.journal`, '--json'], dir);
    expect(v.exitCode, v.stdout.slice(0, 2000)).toBe(0);
    expect(summaryOf(v.stdout)).toMatchObject({ total: USERS, ok: USERS });
    // One core user per source user: nothing created twice, nothing left over from a misread answer.
    expect((await allUsers(client(clean.url))).length).toBe(USERS);
  } finally {
    await clean.stop();
  }
}

describe('answers that are not the request own (a replayed body, a bare OK): checked, never believed', () => {
  it('steps: replay=0.03,bareok=0.03, then the same command without faults', () => rehearse('steps', 31), 2 * RUN_MS);
  it('--via bulk: replay=0.03,bareok=0.03, then the same command without faults', () => rehearse('bulk', 32), 2 * RUN_MS);
  it('--via bulk-staged: replay=0.03,bareok=0.03, then the same command without faults', () => rehearse('bulk-staged', 33), 2 * RUN_MS);
});
