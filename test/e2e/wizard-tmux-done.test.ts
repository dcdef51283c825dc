// Issue 15's "done when", in a real terminal (tmux, the built CLI): a migration with a missing licence key is
// blocked before any write; a run stopped mid-way shows its resume command whole (100x30 and 80x24) and keeps it in
// its run folder, and that command finishes the job after the wizard is closed, the reopened wizard then finding
// every user (exact); a truncated export gives a clear error and leaves the screen usable.
import bcrypt from 'bcryptjs';
import { execa } from 'execa';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyProfile, saveProfile } from '../../src/profiles/index.js';
import { CANONICAL, LICENSE_KEY, SIGNER_KEY } from '../support/fixture.js';
import { cleanEnv } from '../support/cli.js';
import { BIN, TMUX, tmuxInTempDir } from './tmux-driver.js';

const { dir, t } = tmuxInTempDir('am-done-');
const configDir = join(dir, 'config');
const env = { AUTH_MIGRATE_CONFIG_DIR: configDir };

/** A count as the wizard shows it (thousands separators). */
const N = (3000).toLocaleString('en-US');
const footerRow = (screen: string) => screen.split('\n').findIndex((l) => /^(v verify|esc back|↑\/↓)/.test(l));
/** The run folders of a profile: `<profile>-<UTC time>`. */
const folders = (prefix: string) => readdirSync(dir).filter((f) => new RegExp(`^${prefix}-\\d{4}-\\d\\d-\\d\\dT[\\d-]+Z$`).test(f));

/** From the keys screen (profile opened) to the preview, the rest of the keys left as they are. */
async function keysToPreview(): Promise<void> {
  await t.until('2/8 keys');
  await t.press('Down', 'Down', 'Down', 'Down', 'Down', 'Down', 'Down', 'Down', 'Enter');
  await t.until('3/8 source files');
  await t.press('Down', 'Down', 'Down', 'Down', 'Enter');
}

describe.skipIf(!TMUX)('the wizard in tmux: issue 15 done when', () => {
  it('a missing licence key blocks the migration before any write: no run folder, no journal, 0 users in the core', async () => {
    const store = join(dir, 'nolic-store.json');
    await saveProfile(
      { ...emptyProfile('nolic'), sources: [{ path: CANONICAL, format: 'canonical' }], target: { kind: 'sandbox', store } },
      {},
      env,
    );
    await t.launch(['--profile', 'nolic'], { cwd: dir, env, columns: 80, rows: 24 });
    await t.until('2/8 keys');
    // Four arrows and the signer key in one write (one read for the wizard): the key lands in its field.
    await t.sendKeys('Down', 'Down', 'Down', 'Down', SIGNER_KEY);
    await t.until(/signer key\s+•+\s+✓/);
    await t.press('Down', 'Down', 'Down', 'Down', 'Enter');
    await t.until('3/8 source files');
    await t.press('Down', 'Down', 'Down', 'Down', 'Enter');
    await t.until(/records 6 · valid 6/);
    await t.press('c');
    await t.until('5/8 target');
    await t.press('Down', 'Down', 'Enter');
    const screen = await t.until('preflight failed', 30_000);
    expect(screen).toMatch(/error: the core has no licence for MFA/);
    const url = /url\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(screen)![1]!;
    await t.press('c');
    const blocked = await t.until('the preflight found a problem that would stop the run');
    expect(blocked).not.toContain('users to migrate');
    const users = (await (await fetch(`${url}/users`)).json()) as { users: unknown[] };
    expect(users.users).toEqual([]);
    expect(folders('nolic')).toEqual([]);
    expect(readdirSync(dir).filter((f) => f.includes('journal'))).toEqual([]);
    await t.sendKeys('C-c');
    await t.until(/EXIT CODE \d+/);
  });

  it('a run stopped mid-way: resume command whole on screen and in the run folder; it finishes the job after the wizard is closed; reopened, the wizard finds every user', async () => {
    const USERS = 3000;
    const hash = bcrypt.hashSync('not-a-real-password', 4);
    const file = join(dir, 'many.ndjson');
    writeFileSync(
      file,
      Array.from({ length: USERS }, (_, i) => JSON.stringify({ id: `u${i}`, email: `u${i}@example.com`, password: { hash } })).join('\n') +
        '\n',
    );
    const store = join(dir, 'stop-store.json');
    await saveProfile(
      { ...emptyProfile('stop'), sources: [{ path: file, format: 'canonical' }], target: { kind: 'sandbox', store }, concurrency: 1 },
      {},
      env,
    );
    await t.launch(['--profile', 'stop'], { cwd: dir, env, columns: 100, rows: 30 });
    await t.until('2/8 keys');
    // The licence key typed right after two arrows, in one write; kept nowhere (the resume command names its variable).
    await t.sendKeys('Down', 'Down', LICENSE_KEY);
    await t.until(`✓ ${LICENSE_KEY.length} chars`);
    await t.press('Down', 'Down', 'Down', 'Down', 'Down', 'Down', 'Enter');
    await t.until('3/8 source files');
    await t.press('Down', 'Down', 'Down', 'Down', 'Enter');
    await t.until(`records ${USERS.toLocaleString('en-US')} · valid ${USERS.toLocaleString('en-US')}`, 30_000);
    await t.press('c');
    await t.until('5/8 target');
    await t.press('Down', 'Down', 'Enter');
    await t.until('preflight passed', 30_000);
    await t.press('c');
    // Long lines wrap instead of being cut, here and on every screen below (100x30, then 80x24).
    const plan100 = await t.until(`${USERS.toLocaleString('en-US')} users to migrate`, 30_000);
    expect(plan100).not.toContain('…');
    await t.press('d');
    expect(await t.until('dry run: nothing was written')).not.toContain('…');
    await t.press('r');
    await t.until(/[1-9]\d*\/3000 users/, 30_000);
    await t.sendKeys('q');
    const results = await t.until('results: stopped (resumable)', 30_000);

    // The run folder, named for the profile, holds the command, whole.
    expect(folders('stop')).toHaveLength(1);
    const folder = join(dir, folders('stop')[0]!);
    expect(results).toContain(`run folder ${folder}`);
    expect(results).toMatch(/journal\.ndjson · report\.ndjson · failures\.ndjson · resume\.txt/);
    // No key in the command, nor a reference to one (empty in a shell that did not export it): it says to export it.
    const saved = readFileSync(join(folder, 'resume.txt'), 'utf8').trim();
    expect(saved).toMatch(/^# This run used keys from AUTH_MIGRATE_LICENSE_KEY: export it before running the command below\.\n/);
    const resume = saved.split('\n').at(-1)!;
    expect(resume).toContain(`--journal ${join(folder, 'journal.ndjson')}`);
    expect(saved).not.toContain('--license-key');
    expect(saved).not.toContain(LICENSE_KEY);
    expect(results).toContain('resume: export AUTH_MIGRATE_LICENSE_KEY');
    const whole = (screen: string) => {
      const from = screen.indexOf('resume:');
      const to = screen.split('\n').slice(footerRow(screen)).join('\n');
      return screen.slice(from + 'resume:'.length, screen.length - to.length).replace(/\s+/g, '');
    };
    expect(whole(results)).toContain(resume.replace(/\s+/g, ''));
    expect(results).not.toContain('…');
    const imported = Number(/imported (\d+)/.exec(results)![1]);
    expect(imported).toBeGreaterThan(0);
    expect(imported).toBeLessThan(USERS);
    // At 80x24 too: wrapped, never cut.
    await t.resize(80, 24);
    const narrow = await t.untilScreen(
      (s) => /^auth-migrate · 8\/8/.test(s) && footerRow(s) === 22 && s.includes('resume:'),
      'the results redrawn at 80x24',
    );
    expect(whole(narrow)).toContain(resume.replace(/\s+/g, ''));
    await t.press('q');
    await t.until('EXIT CODE 130');
    await t.kill();

    // The same command, from a shell, after the wizard is closed (auth-migrate on the PATH, the key in its variable).
    const shims = join(dir, 'bin');
    mkdirSync(shims, { recursive: true });
    writeFileSync(join(shims, 'auth-migrate'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(shims, 'auth-migrate'), 0o755);
    const again = await execa('sh', ['-c', `${resume} --json`], {
      cwd: dir,
      reject: false,
      extendEnv: false,
      env: cleanEnv({ ...env, AUTH_MIGRATE_LICENSE_KEY: LICENSE_KEY, PATH: `${shims}:${process.env.PATH ?? ''}` }),
    });
    expect(again.exitCode, again.stderr).toBe(0);
    const s = JSON.parse(again.stdout) as Record<string, number | string>;
    expect(s).toMatchObject({ total: USERS, failed: 0, journal: join(folder, 'journal.ndjson') });
    expect((s.imported as number) + (s.alreadyPresent as number)).toBe(USERS);
    expect(s.resumed as number).toBeGreaterThanOrEqual(imported);
    expect(s.imported).toBe(USERS - (s.resumed as number));

    // Reopened: the wizard carries on in the same folder (every user from its journal) and verify finds them all.
    await t.launch(['--profile', 'stop'], { cwd: dir, env: { ...env, AUTH_MIGRATE_LICENSE_KEY: LICENSE_KEY }, columns: 80, rows: 24 });
    await t.until('2/8 keys');
    await t.sendKeys('Down', 'Down', LICENSE_KEY);
    await t.until(`✓ ${LICENSE_KEY.length} chars`);
    await t.press('Down', 'Down', 'Down', 'Down', 'Down', 'Down', 'Enter');
    await t.until('3/8 source files');
    await t.press('Down', 'Down', 'Down', 'Down', 'Enter');
    await t.until(`records ${USERS.toLocaleString('en-US')} · valid ${USERS.toLocaleString('en-US')}`, 30_000);
    await t.press('c');
    await t.until('5/8 target');
    await t.press('Down', 'Down', 'Enter');
    await t.until('preflight passed', 30_000);
    await t.press('c');
    const plan80 = await t.until(`${USERS.toLocaleString('en-US')} users to migrate`, 30_000);
    expect(plan80).not.toContain('…');
    // The plan says the earlier run finished them (issue 23 item 6): not "3,000 users to migrate" as if new.
    expect(plan80.replace(/\s+/g, ' ')).toContain(`the earlier run of this migration finished ${N} of them`);
    expect(plan80.replace(/\s+/g, ' ')).toContain('users whose hash the core cannot take are left out (listed for first sign-in)');
    // More users at a time for the rest (the first run went one at a time so that the stop landed mid-way).
    await t.press('Right');
    await t.press('r');
    const done = await t.until('8/8 results: finished', 60_000);
    // A resumed run is said as one, as headless says it.
    expect(done.replace(/\s+/g, ' ')).toContain(
      `total ${N} · imported 0 · already present ${N} (${N} from the journal) · failed 0 · skipped 0`,
    );
    expect(done).toContain(`run folder ${folder}`);
    expect(folders('stop')).toHaveLength(1);
    await t.press('v');
    await t.until(`verify: ${N}/${N} users ok, 0 with problems, 0 skipped by the run`, 60_000);
    await t.press('q');
    await t.until('EXIT CODE 0');
    expect(existsSync(join(folder, 'journal.ndjson'))).toBe(true);
  }, 180_000);

  it('a truncated export: a clear error naming the file, and the screen stays usable', async () => {
    const whole = readFileSync(CANONICAL.replace(/users\.ndjson$/, 'users.json'), 'utf8');
    const file = join(dir, 'cut.json');
    writeFileSync(file, whole.slice(0, Math.floor(whole.length / 2)));
    await saveProfile({ ...emptyProfile('cut'), sources: [{ path: file, format: 'canonical' }] }, {}, env);
    await t.launch(['--profile', 'cut'], { cwd: dir, env, columns: 80, rows: 24 });
    await keysToPreview();
    const screen = await t.until('could not be read to the end');
    expect(screen.replace(/\s+/g, ' ')).toContain('cut.json');
    expect(screen).not.toContain('wait for the validation');
    expect(footerRow(screen)).toBe(22);
    await t.press('c');
    await t.until('nothing can be migrated from them');
    await t.press('Escape');
    const back = await t.until('3/8 source files');
    expect(back).toContain(file);
    await t.sendKeys('C-c');
    await t.until('EXIT CODE 0');
  });
});
