// Issue 33 point 4: no write to a real core without a yes. With no terminal to ask on (cron, CI, `ssh host cmd`,
// `< /dev/null`), `run --core`, `run --sync --core` and `rollback` refuse without --yes: exit 2, one line naming
// --yes, nothing written to the core (read back: every user as before) and no run folder made. With --yes they
// run; the --sandbox target is a rehearsal and never asks. The "real core" is a sandbox started by the test as a
// separate process and reached through --core URL, so the CLI treats it as any core.
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { allUsers, BIN, cleanEnv, cli, client, LICENSE } from '../support/cli.js';
import { writeNdjson } from '../support/users.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
let dir: string;
let core: RunningSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-yes-'));
  const users = Array.from({ length: 4 }, (_, i) => ({ id: `y${i}`, email: `y${i}@example.test`, password: { hash: BCRYPT } }));
  writeNdjson(join(dir, 'users.ndjson'), users);
  writeNdjson(join(dir, 'newer.ndjson'), [...users.slice(1), { id: 'y9', email: 'y9@example.test', password: { hash: BCRYPT } }]);
  core = await startSandbox({ port: 0, store: join(dir, 'core.json'), licenseKey: LICENSE });
});
afterAll(async () => {
  await core.stop();
  rmSync(dir, { recursive: true, force: true });
});

const runFolders = (where: string) => readdirSync(where).filter((f) => /-\d{4}-\d\d-\d\dT/.test(f));
/** The core as a client reads it: every user with its login methods, in order. */
const coreState = async () => JSON.stringify(await allUsers(client(core.url)));
/** The built CLI with standard input from /dev/null (`< /dev/null`): no terminal to ask on. */
const devNull = (args: string[], cwd: string) =>
  execa(process.execPath, [BIN, ...args], { cwd, reject: false, env: cleanEnv(), extendEnv: false, stdin: 'ignore' });

/** The refusal: exit 2, and exactly one line of stderr, naming --yes and the core. */
function expectRefused(r: { exitCode?: number; stderr: string }, verb: 'write into' | 'remove from'): void {
  expect(r.exitCode, r.stderr).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toContain('--yes');
  expect(lines[0]).toContain(`pass --yes to ${verb} the core ${core.url}`);
}

describe('without a terminal, a real core is not written without --yes', () => {
  it('run --core, run --sync --core and rollback: refused, nothing written; with --yes each runs', async () => {
    const here = mkdtempSync(join(dir, 'notty-'));
    for (const f of ['users.ndjson', 'newer.ndjson']) copyFileSync(join(dir, f), join(here, f));
    const empty = await coreState();

    // run --core: from a pipe (CI) and from /dev/null (cron): refused, the core as it was, no run folder.
    const piped = await cli(['run', 'users.ndjson', '--core', core.url], here);
    expectRefused(piped, 'write into');
    const fromNull = await devNull(['run', 'users.ndjson', '--core', core.url], here);
    expectRefused(fromNull, 'write into');
    expect(await coreState()).toBe(empty);
    expect(runFolders(here)).toEqual([]);

    // With --yes it runs (no question), and says which core it wrote into.
    const run = await devNull(['run', 'users.ndjson', '--core', core.url, '--yes'], here);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain(`about to write into the core ${core.url} (app public, tenant public)`);
    expect(await allUsers(client(core.url))).toHaveLength(4);
    const afterRun = await coreState();
    const folders = runFolders(here);
    expect(folders).toHaveLength(1);

    // run --sync --core: refused the same way, the core as the run left it, no sync folder.
    const sync = await devNull(['run', 'newer.ndjson', '--sync', '--remove-missing', '--core', core.url], here);
    expectRefused(sync, 'write into');
    expect(await coreState()).toBe(afterRun);
    expect(runFolders(here)).toEqual(folders);
    const synced = await devNull(['run', 'newer.ndjson', '--sync', '--remove-missing', '--core', core.url, '--yes'], here);
    expect(synced.exitCode, synced.stderr).toBe(0);
    expect((await allUsers(client(core.url))).map((u) => u.loginMethods[0]?.email).sort()).toEqual([
      'y1@example.test',
      'y2@example.test',
      'y3@example.test',
      'y9@example.test',
    ]);
    const afterSync = await coreState();
    const syncFolder = runFolders(here).find((f) => !folders.includes(f))!;

    // rollback of the journal's own core, and of a core given: refused, nothing removed; a dry run is never asked.
    const journal = join(here, syncFolder, 'journal.ndjson');
    expectRefused(await devNull(['rollback', '--journal', journal], here), 'remove from');
    expectRefused(await cli(['rollback', '--journal', journal, '--core', core.url], here), 'remove from');
    expect(await coreState()).toBe(afterSync);
    const dry = await devNull(['rollback', '--journal', journal, '--dry-run'], here);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(await coreState()).toBe(afterSync);
    const undo = await devNull(['rollback', '--journal', journal, '--yes'], here);
    expect(undo.exitCode, undo.stderr).toBe(0);
    expect(undo.stderr).toContain(`about to remove from the core ${core.url} (app public, tenant public)`);
    expect(await coreState()).not.toBe(afterSync);
    expect(await allUsers(client(core.url))).toHaveLength(4);
  }, 240_000);

  it('the --sandbox target is a rehearsal: it never asks, with or without a terminal', async () => {
    const here = mkdtempSync(join(dir, 'sandbox-'));
    copyFileSync(join(dir, 'users.ndjson'), join(here, 'users.ndjson'));
    const r = await devNull(['run', 'users.ndjson', '--sandbox', '--store', 'rehearsal.json', '--license-key', LICENSE], here);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('--yes');
    expect(r.stderr).toMatch(/imported 4/);
    const journal = join(here, runFolders(here)[0]!, 'journal.ndjson');
    const undo = await devNull(['rollback', '--journal', journal, '--license-key', LICENSE], here);
    expect(undo.exitCode, undo.stderr).toBe(0);
    expect(undo.stderr).toMatch(/4 users removed/);
  });

  it('--help of run and rollback, and the README, say so', async () => {
    const run = await cli(['run', '--help'], dir);
    const rollback = await cli(['rollback', '--help'], dir);
    for (const help of [run.stdout, rollback.stdout]) expect(help.replace(/\s+/g, ' ')).toMatch(/without a terminal .*refused.* --yes/i);
    const { readFileSync } = await import('node:fs');
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    expect(readme.replace(/\s+/g, ' ')).toMatch(/without a terminal .*refused.* `--yes`/);
  });
});
