// The sandbox as a process: SIGKILL in the middle of a stream of writes loses no acknowledged write;
// SIGTERM flushes and exits 0; a corrupt store is refused untouched; bad options exit 2 with one line.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cliBinPath, startSandbox } from '../../src/sandbox/spawn.js';
import { BCRYPT, call } from '../support/sandbox.js';

const dir = mkdtempSync(join(tmpdir(), 'am-durability-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function allEmails(url: string): Promise<Set<string>> {
  const emails = new Set<string>();
  let token: string | undefined;
  do {
    const a = await call(url, 'GET', `/users?limit=500${token ? `&paginationToken=${encodeURIComponent(token)}` : ''}`);
    for (const u of a.json.users as Array<{ emails: string[] }>) for (const e of u.emails) emails.add(e);
    token = a.json.nextPaginationToken;
  } while (token);
  return emails;
}

describe('durability', () => {
  it('every write answered before a SIGKILL is there after a restart on the same store', async () => {
    const store = join(dir, 'kill.json');
    const sb = await startSandbox({ store });
    const acked: string[] = [];
    let n = 0;
    let killed = false;
    async function writer(): Promise<void> {
      while (!killed) {
        const email = `k${n++}@x.io`;
        try {
          const a = await call(sb.url, 'POST', '/recipe/user/passwordhash/import', { email, passwordHash: BCRYPT });
          if (a.status === 200 && a.json.status === 'OK') acked.push(email);
        } catch {
          return; // connection reset by the kill
        }
        if (acked.length >= 400 && !killed) {
          killed = true;
          sb.kill('SIGKILL');
        }
      }
    }
    await Promise.all(Array.from({ length: 16 }, writer));
    expect(acked.length).toBeGreaterThanOrEqual(400);
    const again = await startSandbox({ store });
    try {
      const present = await allEmails(again.url);
      const missing = acked.filter((e) => !present.has(e));
      expect(missing).toEqual([]);
    } finally {
      await again.stop();
    }
  });

  it('SIGTERM finishes, flushes the snapshot and exits 0', async () => {
    const store = join(dir, 'term.json');
    const child = execa(process.execPath, [cliBinPath(), 'core', '--port', '0', '--store', store], {
      reject: false,
      env: { API_KEYS: '' },
    });
    const url = await new Promise<string>((resolve) => {
      child.stdout!.on('data', (c: Buffer) => {
        const m = /core listening on (\S+)/.exec(c.toString());
        if (m) resolve(m[1]!);
      });
    });
    expect((await call(url, 'POST', '/recipe/user/passwordhash/import', { email: 'term@x.io', passwordHash: BCRYPT })).status).toBe(200);
    child.kill('SIGTERM');
    const r = await child;
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(`core listening on ${url}`);
    const snap = JSON.parse(readFileSync(store, 'utf8')) as { collections: { users: Record<string, { email: string }> } };
    expect(Object.values(snap.collections.users).map((u) => u.email)).toEqual(['term@x.io']);
  });
});

describe('lifetime', () => {
  it('the spawned core does not outlive a parent killed with SIGKILL', async () => {
    // The parent is a plain node process, so it uses the built module.
    const built = new URL('../../dist/sandbox/spawn.js', import.meta.url).href;
    const store = join(dir, 'orphan.json');
    const parent = execa(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
      const { startSandbox } = await import(${JSON.stringify(built)});
      const sb = await startSandbox({ store: ${JSON.stringify(store)} });
      process.stdout.write(String(sb.pid) + '\\n');
      setInterval(() => {}, 1000);
    `,
      ],
      { reject: false },
    );
    const childPid = await new Promise<number>((resolve) => {
      parent.stdout!.on('data', (c: Buffer) => {
        const m = /^(\d+)$/m.exec(c.toString());
        if (m) resolve(Number(m[1]));
      });
    });
    const alive = (pid: number): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(alive(childPid)).toBe(true);
    parent.kill('SIGKILL');
    await parent;
    const deadline = Date.now() + 10_000;
    while (alive(childPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(alive(childPid)).toBe(false);
  });
});

describe('refusals at start-up', () => {
  const run = (args: string[], env: Record<string, string> = {}) =>
    execa(process.execPath, [cliBinPath(), 'core', '--port', '0', '--store', join(dir, 'opts.json'), ...args], {
      reject: false,
      env: { API_KEYS: '', EXTERNAL_PASSWORD_HASHING_SIGNER_KEY: '', FIREBASE_PASSWORD_HASHING_SIGNER_KEY: '', ...env },
      timeout: 20_000,
    });

  it('a corrupt store file is refused, named, and left untouched', async () => {
    const store = join(dir, 'corrupt.json');
    writeFileSync(store, '{"format":"auth-migrate-sandbox-store", trunc');
    const r = await execa(process.execPath, [cliBinPath(), 'core', '--port', '0', '--store', store], { reject: false, timeout: 20_000 });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(store);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(readFileSync(store, 'utf8')).toBe('{"format":"auth-migrate-sandbox-store", trunc');
  });

  it.each([
    [['--api-key', 'short-key'], {}, 'One of the API keys is too short'],
    [[], { API_KEYS: 'valid-key-with-more-than-20,bad_key_with_underscore_chars' }, 'Invalid characters in API key'],
    [['--signer-key', 'not base64!!'], {}, 'signer key is not standard base64'],
    [[], { FIREBASE_PASSWORD_HASHING_SIGNER_KEY: 'also*not*base64' }, 'signer key is not standard base64'],
    [['--port', 'abc'], {}, '--port must be a number'],
    [['--bulk-import-interval', 'soon'], {}, '--bulk-import-interval must be a number of seconds from 0 (off) to 86400'],
    [['--bulk-import-batch-size', '1.5'], {}, '--bulk-import-batch-size must be a whole number above 0'],
    [['--bogus'], {}, 'Unknown option'],
  ])('%j %j exits 2 with one clear line and no secret', async (args, env, message) => {
    const r = await run(args, env);
    expect(r.exitCode).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(message);
    for (const secret of ['short-key', 'bad_key_with_underscore_chars', 'not base64!!', 'also*not*base64'])
      expect(r.stderr).not.toContain(secret);
    expect(r.stdout).toBe('');
  });

  it('a port in use exits 2', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = await execa(process.execPath, [cliBinPath(), 'core', '--port', String(port), '--store', join(dir, 'port.json')], {
        reject: false,
        timeout: 20_000,
      });
      expect(r.exitCode).toBe(2);
      expect(r.stderr.trim()).toMatch(new RegExp(`port ${port} .*already in use`));
    } finally {
      blocker.close();
    }
  });
});
