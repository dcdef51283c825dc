// File errors (issue 31, item 7): a file the tool writes that cannot be written ends the command with ONE line
// naming the path and the fix, exit 2, no stack trace; the journal stays readable and the same command, once the
// cause is fixed, ends exact (verify all ok, one core user per source user).
// How each error is made for real (the tests run as root here, and root passes file mode bits):
//  - EACCES: a folder of mode 0500 or a file of mode 0400, and when the tests run as root the command runs as
//    uid/gid 65534 (nobody), so the mode bits apply; as another user they apply anyway.
//  - EFBIG: the command runs under `prlimit --fsize=N` (RLIMIT_FSIZE; Node ignores SIGXFSZ, so the write fails).
//  - ENOSPC: a 64 KiB tmpfs mounted for the test (needs root: skipped, and said so, where mount is refused).
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { allUsers, BIN, cleanEnv, cli, client, LICENSE, summaryOf } from '../support/cli.js';
import { generateUsers, writeNdjson } from '../support/users.js';

const USERS = 300;
const root = process.getuid?.() === 0;
const NOBODY = 65534;
let dir: string;
let sandbox: RunningSandbox;
let tmpfs: string | undefined;

function tryMount(at: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0777`, 'tmpfs', at], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-file-errors-'));
  chmodSync(dir, 0o777);
  sandbox = await startSandbox({ licenseKey: LICENSE });
  const at = join(dir, 'small-disk');
  mkdirSync(at);
  if (root && tryMount(at, '64k')) tmpfs = at;
}, 60_000);

afterAll(async () => {
  await sandbox?.stop();
  if (tmpfs) execFileSync('umount', [tmpfs]);
  rmSync(dir, { recursive: true, force: true });
});

/** The command as the user the mode bits apply to (nobody when the tests run as root), and optionally under a file size limit. */
function asOperator(args: string[], opts: { fsize?: number } = {}) {
  // A cheap bcrypt in the sandbox cores started here (the default 11 rounds make each sign-up cost ~0.2 s).
  const env = cleanEnv({ HOME: dir, AUTH_MIGRATE_SANDBOX_BCRYPT_ROUNDS: '4' });
  const [cmd, argv] =
    opts.fsize !== undefined ? ['prlimit', [`--fsize=${opts.fsize}`, process.execPath, BIN, ...args]] : [process.execPath, [BIN, ...args]];
  return execa(cmd, argv, { cwd: dir, reject: false, env, extendEnv: false, ...(root ? { uid: NOBODY, gid: NOBODY } : {}) });
}

/** A folder the operator owns (nobody when root runs the tests). */
function ownFolder(name: string, mode = 0o700): string {
  const p = join(dir, name);
  mkdirSync(p, { recursive: true });
  if (root) chownSync(p, NOBODY, NOBODY);
  chmodSync(p, mode);
  return p;
}

/** One line on stderr naming the path, the errno and a fix; no stack trace. */
function expectOneLine(stderr: string, code: string, path: string): void {
  const lines = stderr.split('\n').filter((l) => l.startsWith('auth-migrate: '));
  expect(lines, lines.join('\n')).toHaveLength(1);
  expect(lines[0]).toContain(`cannot write ${path}`);
  expect(lines[0]).toContain(`(${code})`);
  expect(stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m); // no stack frame
  expect(stderr).not.toMatch(/Node\.js v\d+/);
}

/** Each test its own users (their emails start with `prefix`), so that no test finds another's users there. */
function usersFile(prefix: string): string {
  const name = `${prefix}.ndjson`;
  writeNdjson(join(dir, name), generateUsers(USERS, { simple: true, prefix }).users);
  chmodSync(join(dir, name), 0o644);
  return name;
}

/** The core's users with this prefix. */
async function usersOf(prefix: string): Promise<number> {
  const users = await allUsers(client(sandbox.url));
  return users.filter((u) => u.emails.some((e) => e.startsWith(prefix))).length;
}

/** The same run, now able to write: exact (verify all ok, one core user per source user). */
async function rerunExact(args: string[], journal: string): Promise<void> {
  const again = await asOperator(args);
  expect(again.exitCode, again.stderr.slice(-1500)).toBe(0);
  expect(summaryOf(again.stdout)).toMatchObject({ total: USERS, failed: 0 });
  const v = await cli(['verify', args[1]!, '--core', sandbox.url, '--journal', journal, '--json'], dir);
  expect(v.exitCode, v.stdout.slice(0, 1500)).toBe(0);
  expect(await usersOf(args[1]!.replace('.ndjson', ''))).toBe(USERS);
}

const runArgs = (users: string, journal: string) => ['run', users, '--core', sandbox.url, '--journal', journal, '--yes', '--json'];

describe('EACCES: a folder or file the operator may not write (mode bits; as uid 65534 when the tests run as root)', () => {
  it('the --out folder: one line naming it, exit 2; writable again, the same command ends exact', async () => {
    const out = ownFolder('ro-out', 0o500);
    const users = usersFile('feout');
    const args = ['run', users, '--core', sandbox.url, '--out', out, '--yes', '--json'];
    const r = await asOperator(args);
    expect(r.exitCode).toBe(2);
    expectOneLine(r.stderr, 'EACCES', out);
    chmodSync(out, 0o700);
    const again = await asOperator(args);
    expect(again.exitCode, again.stderr.slice(-1500)).toBe(0);
    expect(summaryOf(again.stdout)).toMatchObject({ total: USERS, imported: USERS });
    expect(await usersOf('feout')).toBe(USERS);
  }, 120_000);

  for (const file of ['journal', 'report', 'failures'] as const) {
    it(`the ${file} file (mode 0400): one line naming it, exit 2; writable again, the same command ends exact`, async () => {
      const folder = ownFolder(`ro-${file}`);
      const journal = join(folder, 'j.journal.ndjson');
      const target = join(folder, `j.${file}.ndjson`);
      writeFileSync(target, '');
      if (root) chownSync(target, NOBODY, NOBODY);
      chmodSync(target, 0o400);
      const args = runArgs(usersFile(`fe${file}`), journal);
      const r = await asOperator(args);
      expect(r.exitCode).toBe(2);
      expectOneLine(r.stderr, 'EACCES', target);
      chmodSync(target, 0o600);
      await rerunExact(args, journal);
    }, 120_000);
  }
});

describe('EFBIG: a file size limit (prlimit --fsize) reached mid-run', () => {
  it('one line naming the file, exit 2; the journal readable; without the limit the same command ends exact', async () => {
    const folder = ownFolder('fsize');
    const journal = join(folder, 'j.journal.ndjson');
    const args = runArgs(usersFile('fefsize'), journal);
    const r = await asOperator(args, { fsize: 60_000 });
    expect(r.exitCode, r.stderr.slice(-1500)).toBe(2);
    expectOneLine(r.stderr, 'EFBIG', folder);
    // The journal of the stopped run is read: what it finished is not sent again.
    const again = await asOperator(args);
    expect(again.exitCode, again.stderr.slice(-1500)).toBe(0);
    expect(summaryOf(again.stdout)).toMatchObject({ total: USERS, failed: 0 });
    expect((summaryOf(again.stdout) as { resumed: number }).resumed).toBeGreaterThan(0);
    await rerunExact(args, journal);
  }, 180_000);
});

describe('ENOSPC: the run folder on a full disk (a 64 KiB tmpfs)', () => {
  it.skipIf(!root)(
    'one line naming the file, exit 2; with room again, the same command ends exact',
    async () => {
      if (!tmpfs) throw new Error('mount -t tmpfs was refused: this test needs it (root in a namespace that may mount)');
      const folder = join(tmpfs, 'run');
      mkdirSync(folder);
      if (root) chownSync(folder, NOBODY, NOBODY);
      const journal = join(folder, 'j.journal.ndjson');
      // The journal and report of 300 users outgrow 64 KiB.
      const args = runArgs(usersFile('fenospc'), journal);
      const r = await asOperator(args);
      expect(r.exitCode, r.stderr.slice(-1500)).toBe(2);
      expectOneLine(r.stderr, 'ENOSPC', folder);
      execFileSync('mount', ['-o', 'remount,size=8m', tmpfs]);
      await rerunExact(args, journal);
    },
    180_000,
  );
});

/** `auth-migrate core` on `store`, as the operator, optionally under a file size limit; resolves once it listens. */
async function startCore(store: string, opts: { fsize?: number } = {}) {
  const child = asOperator(['core', '--host', '127.0.0.1', '--port', '0', '--store', store, '--reset-license'], opts);
  let url: string | undefined;
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      const m = /core listening on (\S+)/.exec(chunk.toString());
      if (m) {
        url = m[1];
        resolve();
      }
    });
    void child.then((r) => reject(new Error(`core exited ${r.exitCode}: ${r.stderr}`)));
  });
  return { url: url!, child };
}

/** One POST on a connection of its own (none kept alive: the core may exit between two); its status, or undefined when gone. */
function post(url: string, path: string, body: unknown): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = request(`${url}${path}`, {
      method: 'POST',
      agent: false,
      timeout: 10_000,
      headers: { 'content-type': 'application/json', 'cdi-version': '5.0' },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end(JSON.stringify(body));
  });
}

/** Sign up users one at a time until the core stops answering; the emails it answered OK. */
async function signUpUntilItStops(url: string, prefix: string): Promise<string[]> {
  const ok: string[] = [];
  for (let i = 0; i < 5000; i++) {
    const email = `${prefix}${i}@example.test`;
    const status = await post(url, '/recipe/signup', { email, password: 'testPass123' });
    if (status === undefined) return ok; // the core is gone
    if (status === 200) ok.push(email);
  }
  return ok;
}

async function expectAllThere(store: string, emails: string[]): Promise<void> {
  const again = await startCore(store);
  try {
    const missing: string[] = [];
    for (const email of emails) {
      const r = await fetch(`${again.url}/users/by-accountinfo?email=${encodeURIComponent(email)}&doUnionOfAccountInfo=false`, {
        headers: { 'cdi-version': '5.0' },
      });
      if (((await r.json()) as { users: unknown[] }).users.length !== 1) missing.push(email);
    }
    expect(missing).toEqual([]);
  } finally {
    again.child.kill('SIGTERM');
    await again.child;
  }
}

describe('the sandbox store and its change log', () => {
  it('EACCES: a store folder of mode 0500 (as uid 65534 under root): one line naming it, exit 2', async () => {
    const folder = ownFolder('ro-store', 0o500);
    const r = await asOperator(['core', '--host', '127.0.0.1', '--port', '0', '--store', join(folder, 'store.json')]);
    expect(r.exitCode).toBe(2);
    expectOneLine(r.stderr, 'EACCES', folder);
  }, 60_000);

  it('EFBIG: the change log reaches the size limit: one line naming it, exit 2; every write answered OK is kept', async () => {
    const store = join(ownFolder('fsize-store'), 'store.json');
    const core = await startCore(store, { fsize: 30_000 });
    const ok = await signUpUntilItStops(core.url, 'sfb');
    const r = await core.child;
    expect(r.exitCode).toBe(2);
    expectOneLine(r.stderr, 'EFBIG', store);
    expect(ok.length).toBeGreaterThan(5);
    await expectAllThere(store, ok);
  }, 120_000);

  it.skipIf(!root)(
    'ENOSPC: the store on a full disk (64 KiB tmpfs): one line naming it, exit 2; every write answered OK is kept',
    async () => {
      const at = ownFolder('store-disk');
      if (!tryMount(at, '64k')) throw new Error('mount -t tmpfs was refused: this test needs it');
      try {
        const store = join(at, 'store.json');
        const core = await startCore(store);
        const ok = await signUpUntilItStops(core.url, 'sns');
        const r = await core.child;
        expect(r.exitCode).toBe(2);
        expectOneLine(r.stderr, 'ENOSPC', store);
        expect(ok.length).toBeGreaterThan(5);
        execFileSync('mount', ['-o', 'remount,size=8m', at]);
        await expectAllThere(store, ok);
      } finally {
        execFileSync('umount', [at]);
      }
    },
    120_000,
  );
});
