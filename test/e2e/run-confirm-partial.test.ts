// Issue 23 items 1 and 2, headless: a run that would drop a whole class of users for one missing setting is refused
// before anything is made (the fix named, --allow-partial goes on); a real core is written only once confirmed: in a
// terminal the operator types the core's host (tmux), --yes skips the question; without a terminal the run is
// refused unless --yes is given (test/e2e/no-terminal-yes.test.ts), and the lines still say which core was written. The undo (rollback) asks the same way.
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { allUsers, cli, client, LICENSE } from '../support/cli.js';
import { writeNdjson } from '../support/users.js';
import { TMUX, tmuxDriver } from './tmux-driver.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures');
const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
let dir: string;
let core: RunningSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-confirm-'));
  writeNdjson(
    join(dir, 'users.ndjson'),
    Array.from({ length: 4 }, (_, i) => ({ id: `c${i}`, email: `c${i}@example.test`, password: { hash: BCRYPT } })),
  );
  // A "real" core for the CLI: reached through --core URL, so it is treated as one (never as the sandbox).
  core = await startSandbox({ port: 0, store: join(dir, 'core.json'), licenseKey: LICENSE });
});
afterAll(async () => {
  await core.stop();
  rmSync(dir, { recursive: true, force: true });
});

const runFolders = (where: string) => readdirSync(where).filter((f) => /-\d{4}-\d\d-\d\dT/.test(f));
const host = () => new URL(core.url).host;

describe('a run that would drop a whole class of users', () => {
  it('Firebase without its hash config: refused before anything is made, the fix named; --allow-partial goes on', async () => {
    const here = mkdtempSync(join(dir, 'fb-'));
    copyFileSync(join(FIXTURES, 'firebase', 'export.csv'), join(here, 'export.csv'));
    const refused = await cli(['run', 'export.csv', '--sandbox', '--license-key', LICENSE], here);
    expect(refused.exitCode, refused.stderr).toBe(2);
    expect(refused.stderr).toContain('nothing was written: 3 users would lose their password (every Firebase scrypt hash)');
    expect(refused.stderr).toContain('to go on: give --hash-config FILE');
    expect(refused.stderr).toContain('--allow-partial');
    // Nothing made: no run folder, no sandbox started (no store), and the rerun names no journal.
    expect(readdirSync(here)).toEqual(['export.csv']);
    expect(refused.stderr).not.toMatch(/run again: .*--journal/);
    // No "run folder ..." line before "no run folder or journal was made".
    expect(refused.stderr).not.toMatch(/^run folder /m);
    expect(refused.stderr).toContain('no run folder or journal was made');

    const partial = await cli(['run', 'export.csv', '--sandbox', '--license-key', LICENSE, '--allow-partial'], here);
    expect(partial.stderr).toContain('going on without them (--allow-partial): 3 users would lose their password');
    expect(partial.stderr).toMatch(/imported 3/);
    expect(partial.exitCode).toBe(1);
  });

  it('Supabase users without identities and mfa_factors: both companion files named', async () => {
    const here = mkdtempSync(join(dir, 'sb-'));
    copyFileSync(join(FIXTURES, 'supabase', 'users.csv'), join(here, 'users.csv'));
    const r = await cli(['run', 'users.csv', '--sandbox'], here);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('2 users would lose their social and SSO logins (auth.identities)');
    expect(r.stderr).toContain(`give ${join(here, 'identities.csv')}`);
    expect(r.stderr).toContain(`give ${join(here, 'mfa_factors.csv')}`);
    expect(runFolders(here)).toEqual([]);
  });
});

describe('confirmation before a real core is written', () => {
  it('without a terminal: refused without --yes; with it nothing is asked, and the lines name the core, its users and what is written', async () => {
    const here = mkdtempSync(join(dir, 'notty-'));
    copyFileSync(join(dir, 'users.ndjson'), join(here, 'users.ndjson'));
    const refused = await cli(['run', 'users.ndjson', '--core', core.url], here);
    expect(refused.exitCode, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`pass --yes to write into the core ${core.url}`);
    expect(await allUsers(client(core.url))).toHaveLength(0);
    expect(runFolders(here)).toEqual([]);
    const r = await cli(['run', 'users.ndjson', '--core', core.url, '--yes'], here);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`about to write into the core ${core.url} (app public, tenant public)`);
    expect(r.stderr).toContain('users there now: 0');
    expect(r.stderr).toContain(`target ${core.url} (app public, tenant public)`);
    expect(await allUsers(client(core.url))).toHaveLength(4);
    // The undo, without a terminal either: it uses the core the journal records and says so.
    const journal = join(here, runFolders(here)[0]!, 'journal.ndjson');
    const undo = await cli(['rollback', '--journal', journal, '--yes'], here);
    expect(undo.exitCode, undo.stderr).toBe(0);
    expect(undo.stderr).toContain(`about to remove from the core ${core.url} (app public, tenant public)`);
    expect(undo.stderr).toContain('users there now: 4');
    expect(await allUsers(client(core.url))).toHaveLength(0);
  });
});

describe.skipIf(!TMUX)('confirmation in a terminal (tmux)', () => {
  const t = tmuxDriver(join(tmpdir(), `am-confirm-${process.pid}.sock`));
  afterEach(async () => {
    await t.kill().catch(() => undefined);
  });
  afterAll(async () => {
    await t.close();
  });

  it('asks for the core host: anything else writes nothing; the host writes; --yes asks nothing', async () => {
    const here = mkdtempSync(join(dir, 'tty-'));
    copyFileSync(join(dir, 'users.ndjson'), join(here, 'users.ndjson'));
    await t.launch(['run', 'users.ndjson', '--core', core.url], { cwd: here, env: {}, columns: 100, rows: 30 });
    let screen = await t.until(`type ${host()} to write`);
    expect(screen).toContain(`about to write into the core ${core.url} (app public, tenant public)`);
    expect(screen).toContain('users there now: 0');
    await t.type('yes');
    await t.sendKeys('Enter');
    screen = await t.until('EXIT CODE');
    expect(screen).toContain(`not confirmed: nothing was written to ${core.url}`);
    expect(screen).toContain('EXIT CODE 2');
    expect(await allUsers(client(core.url))).toHaveLength(0);
    expect(runFolders(here)).toEqual([]);
    await t.kill();

    await t.launch(['run', 'users.ndjson', '--core', core.url], { cwd: here, env: {}, columns: 100, rows: 30 });
    await t.until(`type ${host()} to write`);
    await t.type(host());
    await t.sendKeys('Enter');
    screen = await t.until('EXIT CODE');
    expect(screen).toContain('EXIT CODE 0');
    expect(await allUsers(client(core.url))).toHaveLength(4);
    await t.kill();

    // The undo in a terminal with --yes: no question, the core named.
    const journal = join(here, runFolders(here)[0]!, 'journal.ndjson');
    await t.launch(['rollback', '--journal', journal, '--yes'], { cwd: here, env: {}, columns: 100, rows: 30 });
    screen = await t.until('EXIT CODE');
    expect(screen).not.toContain('to remove (anything else');
    expect(screen).toContain(`about to remove from the core ${core.url}`);
    expect(screen).toContain('EXIT CODE 0');
    expect(await allUsers(client(core.url))).toHaveLength(0);
  });
});
