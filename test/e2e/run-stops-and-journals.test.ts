// Issue 13's smaller items, end to end: a signal during the validation pass exits 130 with the command to run
// again; a damaged journal line that is not the last is named and stops the run; a resumed run against a core that
// lost some of the users its journal records is stopped by the count check; plain http:// to another host is warned of.
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plainHttpToAnotherHost } from '../../src/core-client/preflight.js';
import { startSandbox } from '../../src/sandbox/spawn.js';
import { BIN, cleanEnv, cli, summaryOf, waitFor } from '../support/cli.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
const line = (i: number) => JSON.stringify({ id: `j${i}`, email: `j${i}@example.test`, password: { hash: BCRYPT } });
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-stops-'));
  writeFileSync(join(dir, 'users.ndjson'), Array.from({ length: 6 }, (_, i) => line(i)).join('\n') + '\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('signals and journals', () => {
  it('SIGTERM during the validation pass exits 130, says nothing was written and how to run again', async () => {
    const big = join(dir, 'big.ndjson');
    writeFileSync(big, Array.from({ length: 300_000 }, (_, i) => line(i)).join('\n') + '\n');
    const child = execa(process.execPath, [BIN, 'run', big, '--core', 'http://127.0.0.1:9', '--yes', '--journal', 'sig.journal.ndjson'], {
      cwd: dir,
      reject: false,
      env: cleanEnv(),
      extendEnv: false,
    });
    // Once the run holds the source open it is in its validation pass (Linux: /proc/<pid>/fd).
    const reading = () => {
      try {
        return readdirSync(`/proc/${child.pid}/fd`).some((fd) => {
          try {
            return readlinkSync(`/proc/${child.pid}/fd/${fd}`) === big;
          } catch {
            return false;
          }
        });
      } catch {
        return false;
      }
    };
    await waitFor(reading, 'the run to open its source');
    child.kill('SIGTERM');
    const r = await child;
    expect(r.exitCode, r.stderr).toBe(130);
    expect(r.stderr).toMatch(
      /SIGTERM received while reading the sources: nothing was written; to run again: auth-migrate run .*--journal sig\.journal\.ndjson/,
    );
    expect(existsSync(join(dir, 'sig.journal.ndjson'))).toBe(false);
  });

  it('a damaged line in the middle of a journal is named and stops the run; a torn last line does not', async () => {
    const sb = await startSandbox({ store: join(dir, 'j-store.json') });
    try {
      const args = ['run', 'users.ndjson', '--core', sb.url, '--yes', '--journal', 'mid.journal.ndjson', '--json'];
      expect((await cli(args, dir)).exitCode).toBe(0);
      const path = join(dir, 'mid.journal.ndjson');
      const lines = readFileSync(path, 'utf8').split('\n');
      writeFileSync(path, [...lines.slice(0, 3), '{"type":"step","user":"j1"', ...lines.slice(3)].join('\n'));
      const damaged = await cli(args, dir);
      expect(damaged.exitCode).toBe(2);
      expect(damaged.stderr).toContain(`${path}:4 is damaged (not a journal entry) and is not the last line`);
      // Torn at the end instead (a crash mid-write): resumed, nothing imported twice.
      writeFileSync(path, lines.join('\n').replace(/\n*$/, '\n') + '{"type":"user","us');
      const torn = await cli(args, dir);
      expect(torn.exitCode, torn.stderr).toBe(0);
      expect(summaryOf(torn.stdout)).toMatchObject({ imported: 0, alreadyPresent: 6 });
    } finally {
      await sb.stop();
    }
  });

  it('a resumed run against a core that lost some of the journalled users is stopped by the count check', async () => {
    const store = join(dir, 'lossy.json');
    let sb = await startSandbox({ store });
    const port = sb.port;
    const args = (url: string) => ['run', 'users.ndjson', '--core', url, '--yes', '--journal', 'lossy.journal.ndjson', '--json'];
    expect((await cli(args(sb.url), dir)).exitCode).toBe(0);
    await sb.stop();
    // The same core restored from an older backup that lacks j4: its store without that user. The count check comes
    // first, so which users the samples look at (the journal's completion order) does not matter.
    const data = JSON.parse(readFileSync(store, 'utf8')) as { collections: { users: Record<string, { email?: string }> } };
    const lost = Object.entries(data.collections.users).find(([, u]) => u.email === 'j4@example.test')![0];
    delete data.collections.users[lost];
    writeFileSync(store, JSON.stringify(data));
    sb = await startSandbox({ store, port });
    try {
      const r = await cli(args(sb.url), dir);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('records 6 users as migrated, but the core holds only 5 users in this tenant');
    } finally {
      await sb.stop();
    }
  });

  it('http:// to a host that is not loopback is warned of; loopback and https are not', () => {
    expect(plainHttpToAnotherHost('http://core.internal:3567')).toBe(true);
    expect(plainHttpToAnotherHost('http://10.0.0.5:3567')).toBe(true);
    expect(plainHttpToAnotherHost('http://127.0.0.1:3567')).toBe(false);
    expect(plainHttpToAnotherHost('http://localhost:3567')).toBe(false);
    expect(plainHttpToAnotherHost('http://[::1]:3567')).toBe(false);
    expect(plainHttpToAnotherHost('https://core.internal')).toBe(false);
  });
});

describe('a core that is down', () => {
  it('run and verify say so after a few quick tries of /hello, not after a minute of retries', async () => {
    for (const command of ['run', 'verify']) {
      const r = await cli(
        [
          command,
          'users.ndjson',
          '--core',
          'http://127.0.0.1:9',
          ...(command === 'run' ? ['--yes', '--journal', 'down.journal.ndjson'] : []),
        ],
        dir,
      );
      expect(r.exitCode, command).toBe(2);
      expect(r.stderr).toMatch(/the core at http:\/\/127\.0\.0\.1:9 is unreachable: GET \/hello failed 4 time\(s\)/);
    }
  });
});
