// Users already partly in the core (issue 20 item 12, issue 24): a password imported earlier by `--via steps`, a
// Google login alone. Bulk import never adds to an existing user, so the bulk paths complete such users by the
// per-user steps: the external id mapped, the Google login added and linked under a primary, the --disabled
// role given. Every report line, count, failures-file line and signin-migration.ndjson line (with its userId) is
// the one `--via steps` gives, on identically seeded cores, and so is the end state.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/spawn.js';
import { allUsers, cli, client, LICENSE, summaryOf } from '../support/cli.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
const MD5 = '5f4dcc3b5aa765d61d8327deb882cf99';
const JOINED = Date.UTC(2020, 0, 2);
const env = { AUTH_MIGRATE_LICENSE_KEY: LICENSE };

const seed = [
  { id: 'a', email: 'a@example.test', password: { hash: BCRYPT } },
  { id: 'b', email: 'b@example.test', password: { hash: BCRYPT } },
  { id: 'c', email: 'c@example.test', thirdParty: [{ providerId: 'google', userId: 'g-c' }] },
];
const users = [
  {
    id: 'a',
    email: 'a@example.test',
    emailVerified: true,
    password: { hash: BCRYPT },
    externalUserId: 'ext-a',
    thirdParty: [{ providerId: 'google', userId: 'g-a' }],
    timeJoined: JOINED,
  },
  { id: 'b', email: 'b@example.test', password: { hash: BCRYPT }, disabled: true, timeJoined: JOINED },
  {
    id: 'c',
    email: 'c@example.test',
    password: { hash: BCRYPT },
    thirdParty: [{ providerId: 'google', userId: 'g-c' }],
    timeJoined: JOINED,
  },
  { id: 'd', email: 'd@example.test', password: { hash: MD5 }, thirdParty: [{ providerId: 'github', userId: 'gh-d' }], timeJoined: JOINED },
  { id: 'n', email: 'n@example.test', password: { hash: BCRYPT }, externalUserId: 'ext-n', metadata: { plan: 'pro' }, timeJoined: JOINED },
];

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const lines = (path: string): string[] =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => l.replace(UUID, '<id>'))
        .sort()
    : [];

interface Outcome {
  summary: Record<string, unknown>;
  report: string[];
  failures: string[];
  signIn: string[];
  state: string[];
}

let dir: string;
const outcomes: Record<string, Outcome> = {};

async function runVia(via: string): Promise<Outcome> {
  const sandbox = await startSandbox({ store: join(dir, `${via}.json`), licenseKey: LICENSE, bulkImportIntervalSec: 1 });
  try {
    const first = await cli(['run', 'seed.ndjson', '--core', sandbox.url, '--yes', '--journal', `${via}-seed.ndjson`, '--json'], dir, env);
    expect(first.exitCode, first.stderr).toBe(0);
    const args = ['run', 'users.ndjson', '--core', sandbox.url, '--yes', '--via', via, '--journal', `${via}.ndjson`, '--json'];
    const r = await cli([...args, '--disabled', 'role:blocked', '--unusable-hashes', 'without-password', '--job-interval', '1'], dir, env);
    expect(r.exitCode, r.stderr).toBe(0);
    const summary = summaryOf(r.stdout);
    const c = client(sandbox.url);
    const state: string[] = [];
    for (const u of await allUsers(c)) {
      const methods = u.loginMethods.map((m) => `${m.recipeId}:${m.email ?? ''}:${m.thirdParty?.id ?? ''}:${m.verified}`).sort();
      const roles = (await c.getUserRoles(u.id)).roles.sort();
      state.push(JSON.stringify({ id: u.id.replace(UUID, '<id>'), primary: u.isPrimaryUser, methods, roles }));
    }
    c.close();
    const base = join(dir, via);
    return {
      summary: {
        total: summary.total,
        imported: summary.imported,
        alreadyPresent: summary.alreadyPresent,
        failed: summary.failed,
        skipped: summary.skipped,
      },
      report: lines(`${base}.report.ndjson`),
      failures: lines(`${base}.failures.ndjson`),
      signIn: lines(`${base}.signin-migration.ndjson`),
      state: state.sort(),
    };
  } finally {
    await sandbox.stop();
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-partial-'));
  writeFileSync(join(dir, 'seed.ndjson'), seed.map((u) => JSON.stringify(u)).join('\n') + '\n');
  writeFileSync(join(dir, 'users.ndjson'), users.map((u) => JSON.stringify(u)).join('\n') + '\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.sequential('users partly in the core, on every --via path', () => {
  it('steps completes them (the yardstick): external id, Google login, role, sign-in migration line with its user id', async () => {
    const s = (outcomes.steps = await runVia('steps'));
    expect(s.summary).toMatchObject({ total: 5, failed: 0, skipped: 0 });
    expect(s.state.find((x) => x.includes('"id":"ext-a"'))).toMatch(/thirdparty:a@example.test:google/);
    expect(s.state.find((x) => x.includes('b@example.test'))).toContain('"roles":["blocked"]');
    expect(s.signIn).toHaveLength(1);
    expect(JSON.parse(s.signIn[0]!)).toMatchObject({ sourceId: 'd', userId: '<id>', outcome: 'imported' });
  }, 120_000);

  it.each(['bulk', 'bulk-staged'])(
    '--via %s gives the same report, counts, failures, sign-in lines and end state as steps',
    async (via) => {
      const o = await runVia(via);
      const s = outcomes.steps!;
      expect(o.summary).toEqual(s.summary);
      expect(o.report).toEqual(s.report);
      expect(o.failures).toEqual(s.failures);
      expect(o.signIn).toEqual(s.signIn);
      expect(o.state).toEqual(s.state);
    },
    120_000,
  );
});
