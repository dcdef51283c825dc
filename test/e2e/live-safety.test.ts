// Safe on a live core (issue 13): one sandbox per store and one run per journal (a second is refused naming the
// holder; a crashed holder's lock is taken over), the store and its log private (0600), and an output file path
// holding a planted symbolic link refused with its target untouched.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityId, openJournal } from '../../src/engine/journal/journal.js';
import { startSandbox } from '../../src/sandbox/spawn.js';
import { BIN, cleanEnv, cli, summaryOf } from '../support/cli.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-safety-'));
  writeFileSync(
    join(dir, 'users.ndjson'),
    [0, 1, 2].map((i) => JSON.stringify({ id: `s${i}`, email: `s${i}@example.test`, password: { hash: BCRYPT } })).join('\n') + '\n',
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;

describe('one sandbox per store', () => {
  it('a second core on the same store exits 2 naming the holder; once the first stops, it starts', async () => {
    const store = join(dir, 'shared.json');
    const first = await startSandbox({ store });
    try {
      const second = await execa(process.execPath, [BIN, 'core', '--port', '0', '--store', store], {
        reject: false,
        env: cleanEnv(),
        extendEnv: false,
        timeout: 20_000,
      });
      expect(second.exitCode).toBe(2);
      expect(second.stderr).toContain(`the sandbox store ${store} is in use by auth-migrate core (pid ${first.pid}`);
    } finally {
      await first.stop();
    }
    expect(existsSync(`${store}.lock`)).toBe(false);
    const again = await startSandbox({ store });
    await again.stop();
  });

  it('the lock of a SIGKILLed sandbox is taken over', async () => {
    const store = join(dir, 'crashed.json');
    const first = await startSandbox({ store });
    first.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 300));
    expect(existsSync(`${store}.lock`)).toBe(true);
    const next = await startSandbox({ store });
    await next.stop();
  });

  it('the store, its log and its lock are created 0600', async () => {
    const store = join(dir, 'private.json');
    const sb = await startSandbox({ store });
    try {
      await fetch(`${sb.url}/recipe/user/passwordhash/import`, {
        method: 'POST',
        body: JSON.stringify({ email: 'p@x.io', passwordHash: BCRYPT }),
      });
      expect(mode(`${store}.log`)).toBe(0o600);
      expect(mode(`${store}.lock`)).toBe(0o600);
    } finally {
      await sb.stop();
    }
    expect(mode(store)).toBe(0o600);
  });
});

describe('one run per journal', () => {
  it('a second run on a journal in use exits 2 naming the holder', async () => {
    const journalPath = join(dir, 'busy.journal.ndjson');
    const sb = await startSandbox({ store: join(dir, 'busy-store.json') });
    const identity = { sources: [join(dir, 'users.ndjson')], target: `${sb.url} tenant=public app=public` };
    expect(identityId(identity)).toHaveLength(12);
    const held = await openJournal(journalPath, identity);
    try {
      const r = await cli(['run', 'users.ndjson', '--core', sb.url, '--yes', '--journal', journalPath, '--json'], dir);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(`the journal ${journalPath} is in use by auth-migrate run (pid ${process.pid}`);
    } finally {
      await held.close();
    }
    const ok = await cli(['run', 'users.ndjson', '--core', sb.url, '--yes', '--journal', journalPath, '--json'], dir);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(summaryOf(ok.stdout)).toMatchObject({ imported: 3 });
    expect(mode(journalPath)).toBe(0o600);
    await sb.stop();
  });
});

describe('output files are never written through a link', () => {
  it('a symbolic link planted at the report path is refused; its target is untouched', async () => {
    const sb = await startSandbox({ store: join(dir, 'link-store.json') });
    try {
      const target = join(dir, 'precious.txt');
      writeFileSync(target, 'do not touch\n');
      chmodSync(target, 0o644);
      symlinkSync(target, join(dir, 'linked.report.ndjson'));
      const r = await cli(['run', 'users.ndjson', '--core', sb.url, '--yes', '--journal', 'linked.journal.ndjson', '--json'], dir);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/refusing to write .*linked\.report\.ndjson: it is a symbolic link/);
      expect(readFileSync(target, 'utf8')).toBe('do not touch\n');
      expect(mode(target)).toBe(0o644);
    } finally {
      await sb.stop();
    }
  });
});
