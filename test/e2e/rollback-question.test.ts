// Issue 33 point 5: a rollback says what it WOULD remove (and keep) before it asks, and "removed" only after the
// answer. Headless with --yes (the question answered up front: the order of the lines still shows it) and in a
// terminal (tmux): a "no" leaves the core as it was and the screen never claimed a removal.
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { allUsers, cli, client, LICENSE } from '../support/cli.js';
import { writeNdjson } from '../support/users.js';
import { TMUX, tmuxDriver } from './tmux-driver.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
let dir: string;
let core: RunningSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-undo-ask-'));
  writeNdjson(
    join(dir, 'users.ndjson'),
    Array.from({ length: 6 }, (_, i) => ({ id: `q${i}`, email: `q${i}@example.test`, password: { hash: BCRYPT } })),
  );
  core = await startSandbox({ port: 0, store: join(dir, 'core.json'), licenseKey: LICENSE });
});
afterAll(async () => {
  await core.stop();
  rmSync(dir, { recursive: true, force: true });
});

const runFolders = (where: string) => readdirSync(where).filter((f) => /-\d{4}-\d\d-\d\dT/.test(f));
const host = () => new URL(core.url).host;
/** A removal claimed: "6 removed", "removed 6", "users removed". */
const CLAIMS_REMOVAL = /\b\d+ removed\b|\bremoved \d+|users removed/;

async function migrated(name: string): Promise<{ here: string; journal: string }> {
  const here = mkdtempSync(join(dir, `${name}-`));
  copyFileSync(join(dir, 'users.ndjson'), join(here, 'users.ndjson'));
  const r = await cli(['run', 'users.ndjson', '--core', core.url, '--yes'], here);
  expect(r.exitCode, r.stderr).toBe(0);
  return { here, journal: join(here, runFolders(here)[0]!, 'journal.ndjson') };
}

describe('rollback: "would remove" before the question, "removed" after it', () => {
  it('headless with --yes: the check and the confirmation say would; the summary after says removed', async () => {
    const { here, journal } = await migrated('yes');
    const r = await cli(['rollback', '--journal', journal, '--yes'], here);
    expect(r.exitCode, r.stderr).toBe(0);
    const question = r.stderr.indexOf(`about to remove from the core ${core.url}`);
    expect(question, r.stderr).toBeGreaterThan(-1);
    const before = r.stderr.slice(0, question);
    const confirmation = r.stderr.slice(question).split('\n').slice(0, 4).join('\n');
    expect(before).toMatch(/6 of 6 users checked: would remove 6, would keep 0; nothing removed yet/);
    expect(before).not.toMatch(CLAIMS_REMOVAL);
    expect(confirmation).toContain('would remove 6 users the run created');
    expect(confirmation).toContain('would keep 0 users changed since the run');
    expect(confirmation).not.toMatch(CLAIMS_REMOVAL);
    expect(r.stderr.slice(question)).toMatch(/rollback: 6 users removed/);
    expect(await allUsers(client(core.url))).toHaveLength(0);
  });

  it('a dry run says would', async () => {
    const { here, journal } = await migrated('dry');
    const r = await cli(['rollback', '--journal', journal, '--dry-run'], here);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('dry run: would remove 6 users');
    expect(r.stderr + r.stdout).not.toMatch(CLAIMS_REMOVAL);
    await cli(['rollback', '--journal', journal, '--yes'], here);
  });
});

describe.skipIf(!TMUX)('rollback in a terminal (tmux)', () => {
  const t = tmuxDriver(join(tmpdir(), `am-undo-ask-${process.pid}.sock`));
  afterEach(async () => {
    await t.kill().catch(() => undefined);
  });
  afterAll(async () => {
    await t.close();
  });

  it('asks with "would remove 6"; no removes nothing; the host removes, then says removed', async () => {
    const { here, journal } = await migrated('tty');
    await t.launch(['rollback', '--journal', journal], { cwd: here, env: {}, columns: 120, rows: 30 });
    let screen = await t.until(`type ${host()} to remove`);
    expect(screen).toContain('would remove 6 users the run created');
    expect(screen).not.toMatch(CLAIMS_REMOVAL);
    await t.type('no');
    await t.sendKeys('Enter');
    screen = await t.until('EXIT CODE');
    expect(screen).toContain(`not confirmed: nothing was removed from ${core.url}`);
    expect(screen).not.toMatch(CLAIMS_REMOVAL);
    expect(await allUsers(client(core.url))).toHaveLength(6);
    await t.kill();

    await t.launch(['rollback', '--journal', journal], { cwd: here, env: {}, columns: 120, rows: 30 });
    await t.until(`type ${host()} to remove`);
    await t.type(host());
    await t.sendKeys('Enter');
    screen = await t.until('EXIT CODE');
    expect(screen).toContain('EXIT CODE 0');
    expect(screen).toMatch(/rollback: 6 users removed/);
    expect(await allUsers(client(core.url))).toHaveLength(0);
  }, 120_000);
});
