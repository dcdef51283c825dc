// Runs get a home (issue 15): by default each run writes its journal, report, failures file and resume command
// into one folder named for the profile (or "run") and the time, under the current folder or --out DIR, printed at
// start; the same command run again carries on in that folder; verify finds the journal there; --journal still wins.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityId } from '../../src/engine/journal/journal.js';
import { chooseRunJournal, findRunJournal, runFolderName } from '../../src/engine/run-folder.js';
import { pathsBesideJournal, resumeFileOf } from '../../src/engine/report.js';
import { cli, LICENSE, summaryOf } from '../support/cli.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
/** Without a profile the folder is named after the sources' format (here: canonical NDJSON). */
const FOLDER = /^canonical-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ$/;
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-folder-'));
  // One user with a TOTP device, so that verify's TOTP checks log has something to keep.
  const users = Array.from({ length: 5 }, (_, i) => ({
    id: `f${i}`,
    email: `f${i}@example.test`,
    password: { hash: BCRYPT },
    ...(i === 0 ? { externalUserId: 'ext-f0', totp: [{ secret: 'ZAO4SM3M2WKCJLC57AFOUDZAGEA7A45C' }] } : {}),
  }));
  writeFileSync(join(dir, 'users.ndjson'), users.map((u) => JSON.stringify(u)).join('\n') + '\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('run folders', () => {
  it('names a folder for the profile and the UTC time, made safe for a path', () => {
    const at = new Date('2026-11-23T09:35:08.123Z');
    expect(runFolderName('night', at)).toBe('night-2026-11-23T09-35-08Z');
    expect(runFolderName(undefined, at)).toBe('run-2026-11-23T09-35-08Z');
    expect(runFolderName('../a b/c', at)).toBe('a-b-c-2026-11-23T09-35-08Z');
    expect(pathsBesideJournal('/x/night-1/journal.ndjson')).toEqual({
      journal: '/x/night-1/journal.ndjson',
      report: '/x/night-1/report.ndjson',
      failures: '/x/night-1/failures.ndjson',
      signIn: '/x/night-1/signin-migration.ndjson',
    });
    expect(resumeFileOf('/x/night-1/journal.ndjson')).toBe('/x/night-1/resume.txt');
    // The older layout is unchanged.
    expect(pathsBesideJournal('/x/a.journal.ndjson').report).toBe('/x/a.report.ndjson');
    expect(resumeFileOf('/x/a.journal.ndjson')).toBe('/x/a.resume.txt');
  });

  it('a second run in the same second gets a folder of its own; an older hash-named journal is still found', async () => {
    const out = mkdtempSync(join(tmpdir(), 'am-folder-unit-'));
    try {
      const identity = { sources: ['/data/u.ndjson'], target: 'sandbox:/s.json' };
      const at = new Date('2026-11-23T09:35:08Z');
      mkdirSync(join(out, 'p-2026-11-23T09-35-08Z'));
      const c = await chooseRunJournal({ cwd: out, label: 'p', identity, at });
      expect(c).toEqual({
        journal: join(out, 'p-2026-11-23T09-35-08Z-2', 'journal.ndjson'),
        folder: join(out, 'p-2026-11-23T09-35-08Z-2'),
        found: false,
      });
      // A folder whose journal is of another migration is not taken.
      mkdirSync(join(out, 'other'));
      writeFileSync(join(out, 'other', 'journal.ndjson'), JSON.stringify({ type: 'run', id: 'not-this-one' }) + '\n');
      expect(await findRunJournal(out, identity)).toBeUndefined();
      const legacy = join(out, `auth-migrate-${identityId(identity)}.journal.ndjson`);
      writeFileSync(legacy, '');
      expect(await findRunJournal(out, identity)).toBe(legacy);
      expect(await chooseRunJournal({ cwd: out, identity, journal: 'x.journal.ndjson' })).toEqual({
        journal: join(out, 'x.journal.ndjson'),
        found: false,
      });
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('run writes every file in one folder, says so at start, carries on there when run again; verify finds it; --out moves it', async () => {
    const target = ['--sandbox', '--store', 'store.json', '--license-key', LICENSE];
    const first = await cli(['run', 'users.ndjson', ...target, '--json'], dir);
    expect(first.exitCode, first.stderr).toBe(0);
    const folders = readdirSync(dir).filter((f) => FOLDER.test(f));
    expect(folders).toHaveLength(1);
    const folder = join(dir, folders[0]!);
    // Printed right before the first write (after the target), and again with the files at the end.
    const lines = first.stderr.split('\n');
    const at = lines.indexOf(`run folder ${folder}`);
    expect(lines[at - 1]).toMatch(/^target http:\/\/127\.0\.0\.1:\d+ \(app public, tenant public\)$/);
    expect(lines.lastIndexOf(`run folder ${folder}`)).toBeGreaterThan(at);
    expect(first.stderr).toContain(`journal ${join(folder, 'journal.ndjson')}`);
    expect(first.stderr).toContain(`report ${join(folder, 'report.ndjson')}`);
    const s = summaryOf(first.stdout);
    expect(s).toMatchObject({ imported: 5, runFolder: folder, journal: join(folder, 'journal.ndjson') });
    for (const f of ['journal.ndjson', 'report.ndjson', 'failures.ndjson']) {
      expect(statSync(join(folder, f)).mode & 0o777).toBe(0o600);
    }
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    // Nothing else lands in the current folder (no hash-named files any more).
    expect(readdirSync(dir).filter((f) => f.endsWith('.ndjson') && f !== 'users.ndjson')).toEqual([]);

    // The same command again: the same folder, every user from its journal.
    const again = await cli(['run', 'users.ndjson', ...target, '--json'], dir);
    expect(again.stderr).toContain(`run folder ${folder} (carrying on from the earlier run of this migration: 5 users finished)`);
    expect(summaryOf(again.stdout)).toMatchObject({ total: 5, resumed: 5, runFolder: folder });
    expect(readdirSync(dir).filter((f) => FOLDER.test(f))).toHaveLength(1);

    // verify (TOTP checks on for the sandbox) finds the journal in the folder and keeps its log there.
    const v = await cli(['verify', 'users.ndjson', ...target, '--json'], dir);
    expect(v.exitCode, v.stderr).toBe(0);
    expect(existsSync(join(folder, 'journal.ndjson.totp-checks.ndjson'))).toBe(true);

    // --out DIR: a new folder there (the journal under the current folder is not of that place).
    const moved = await cli(['run', 'users.ndjson', ...target, '--out', 'runs', '--json'], dir);
    expect(moved.exitCode, moved.stderr).toBe(0);
    const under = readdirSync(join(dir, 'runs'));
    expect(under).toHaveLength(1);
    expect(under[0]).toMatch(FOLDER);
    expect(summaryOf(moved.stdout)).toMatchObject({ alreadyPresent: 5, resumed: 0, runFolder: join(dir, 'runs', under[0]!) });

    // An explicit --journal keeps the files beside it, as before.
    const explicit = await cli(['run', 'users.ndjson', ...target, '--journal', 'mine.journal.ndjson', '--json'], dir);
    expect(summaryOf(explicit.stdout)).toMatchObject({
      journal: join(dir, 'mine.journal.ndjson'),
      reportFile: join(dir, 'mine.report.ndjson'),
    });
    expect(summaryOf(explicit.stdout).runFolder).toBeUndefined();
  });

  it('the help says where the files go', async () => {
    const help = await cli(['run', '--help'], dir);
    expect(help.stdout).toContain('--out DIR');
    expect(help.stdout).toMatch(/one folder named for\s+the profile/);
    const top = await cli(['--help'], dir);
    expect(top.stdout).toContain('--out DIR');
    expect(readFileSync(join(dir, 'users.ndjson'), 'utf8')).toContain('f4');
  });
});
