// A journal resumed against a core that no longer holds its users (the core was reset, or a new sandbox
// store took the old path) must not report them as present: the run refuses before writing anything, on every
// `--via` path (one engine checks the journal for all of them).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/spawn.js';
import { allUsers, cli, client, LICENSE, summaryOf } from '../support/cli.js';
import { generateUsers, writeNdjson } from '../support/users.js';

let dir: string;
const set = generateUsers(8, { simple: true, prefix: 'j' });
const env = { AUTH_MIGRATE_LICENSE_KEY: LICENSE };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-stale-'));
  writeNdjson(join(dir, 'users.ndjson'), set.users);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function storeUserCount(store: string): Promise<number> {
  const sb = await startSandbox({ store, licenseKey: LICENSE });
  try {
    return (await allUsers(client(sb.url))).length;
  } finally {
    await sb.stop();
  }
}

describe('a journal whose users the core no longer has', () => {
  it.each(['steps', 'bulk', 'bulk-staged'])(
    '--via %s: stops with exit 2 and writes nothing; a new journal then imports everyone',
    async (via) => {
      const store = `${via}-store.json`;
      const args = ['run', 'users.ndjson', '--via', via, '--sandbox', '--store', store, '--journal', `${via}.journal.ndjson`, '--json'];
      const first = await cli(args, dir, env);
      expect(first.exitCode, first.stderr).toBe(0);
      expect(summaryOf(first.stdout)).toMatchObject({ total: 8, imported: 8 });

      // The core is reset under the journal: a fresh store at the same path.
      for (const f of [store, `${store}.log`]) rmSync(join(dir, f), { force: true });
      const journalBefore = readFileSync(join(dir, `${via}.journal.ndjson`), 'utf8');
      const stale = await cli(args, dir, env);
      expect(stale.exitCode).toBe(2);
      expect(stale.stderr).toMatch(
        /records 8 users as migrated, but the core holds no users in this tenant: it was reset, or this is another core/,
      );
      expect(stale.stderr).toMatch(/new\s+--journal/);
      expect(await storeUserCount(join(dir, store))).toBe(0);
      // The journal gained only this run's header and end: no step ran and no user was counted as done again.
      const added = readFileSync(join(dir, `${via}.journal.ndjson`), 'utf8')
        .slice(journalBefore.length)
        .trim()
        .split('\n');
      expect(added.map((l) => JSON.parse(l).type)).toEqual(['run', 'end']);

      const fresh = await cli([...args.slice(0, -3), '--journal', `${via}-second.journal.ndjson`, '--json'], dir, env);
      expect(fresh.exitCode, fresh.stderr).toBe(0);
      expect(summaryOf(fresh.stdout)).toMatchObject({ total: 8, imported: 8, alreadyPresent: 0 });
      expect(await storeUserCount(join(dir, store))).toBe(8);
      expect(existsSync(join(dir, `${via}-second.journal.ndjson`))).toBe(true);
    },
  );

  it('resumes as before when the core still holds the journalled users', async () => {
    const args = ['run', 'users.ndjson', '--sandbox', '--store', 'kept.json', '--journal', 'kept.journal.ndjson', '--json'];
    expect((await cli(args, dir, env)).exitCode).toBe(0);
    const again = await cli(args, dir, env);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(summaryOf(again.stdout)).toMatchObject({ total: 8, imported: 0, alreadyPresent: 8, resumed: 8 });
  });
});
