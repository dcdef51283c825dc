// End to end: answers that must stop the whole run (401 wrong api-key, 402 no licence, unknown tenant) end
// it with exit 2 and a message; a run the preflight refuses leaves no journal, a run stopped mid-way a journal of exactly what was done.
import { decodeJournalLine } from '../../src/engine/journal/lines.js';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { allUsers, cli, client, summaryOf } from '../support/cli.js';
import { writeNdjson } from '../support/users.js';
import type { CanonicalUser } from '../../src/records/types.js';

const HASH = '$2a$04$0ufm6TCF8gqYSgGO5bplBOzCClCYVYWX3r4Kb9/SoLAgLePE3ENsy'; // any bcrypt string
const SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const API_KEY = 'fatal-api-key-0123456789abcd';

let dir: string;
let sandbox: RunningSandbox | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-fatal-'));
});
afterEach(async () => {
  await sandbox?.stop();
  sandbox = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const journalLines = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .flatMap((l) => decodeJournalLine(l) as unknown as Array<Record<string, unknown>>);

describe('fatal answers', () => {
  it('401: a wrong api-key ends the run with exit 2, a message naming the key, and nothing done', async () => {
    writeNdjson(join(dir, 'users.ndjson'), [{ id: 'a', email: 'a@example.test', password: { hash: HASH } }]);
    sandbox = await startSandbox({ store: join(dir, 'store.json'), apiKeys: [API_KEY] });
    const wrong = 'wrong-api-key-0123456789abcdef';
    const r = await cli(
      ['run', 'users.ndjson', '--core', sandbox.url, '--yes', '--api-key', wrong, '--journal', 'j.ndjson', '--json'],
      dir,
    );
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/auth-migrate: nothing was written: the core at .* refused the api-key \(HTTP 401 Invalid API key\)/);
    expect(r.stderr + r.stdout).not.toContain(wrong);
    expect(summaryOf(r.stdout)).toMatchObject({ stopped: 'fatal', imported: 0 });
    // The command to run again never holds a key nor a reference to one: it says which variable to export.
    expect(r.stderr).toMatch(
      /run again: export AUTH_MIGRATE_API_KEY .*then: auth-migrate run users\.ndjson --core \S+ --yes --journal j\.ndjson --json$/m,
    );
    expect(r.stderr).not.toMatch(/run again:.*--api-key/);
    // Refused before any write: no journal is left behind (a rerun starts clean).
    expect(existsSync(join(dir, 'j.ndjson'))).toBe(false);
    expect(r.stderr).toContain('no run folder or journal was made');
    expect((await allUsers(client(sandbox.url, API_KEY))).length).toBe(0);

    // Without the preflight, the first write meets the 401 and the run stops just the same.
    const direct = await cli(
      ['run', 'users.ndjson', '--core', sandbox.url, '--yes', '--api-key', wrong, '--journal', 'j.ndjson', '--skip-preflight'],
      dir,
    );
    expect(direct.exitCode).toBe(2);
    expect(direct.stderr).toMatch(/auth-migrate: the core at .* refused the api-key \(HTTP 401 Invalid API key\)/);
    const entries = journalLines(join(dir, 'j.ndjson'));
    expect(entries.map((e) => e.type)).toEqual(['run', 'end']);
    expect(entries[1]).toMatchObject({ reason: 'fatal' });
  });

  it('402: a sandbox without a licence refuses TOTP; the run stops with exit 2 and the journal holds exactly the steps done', async () => {
    const users: CanonicalUser[] = [
      { id: 'p1', email: 'p1@example.test', password: { hash: HASH } },
      { id: 'p2', email: 'p2@example.test', password: { hash: HASH }, externalUserId: 'ext-p2' },
      { id: 't3', email: 't3@example.test', password: { hash: HASH }, externalUserId: 'ext-t3', totp: [{ secret: SECRET }] },
      { id: 'p4', email: 'p4@example.test', password: { hash: HASH } },
    ];
    writeNdjson(join(dir, 'users.ndjson'), users);
    sandbox = await startSandbox({ store: join(dir, 'store.json') });
    // The preflight sees that this plan imports TOTP devices and that the core has no MFA licence.
    const refused = await cli(['run', 'users.ndjson', '--core', sandbox.url, '--yes', '--journal', 'j.ndjson', '--json'], dir);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/auth-migrate: nothing was written: the core has no licence for MFA/);
    expect(existsSync(join(dir, 'j.ndjson'))).toBe(false);
    expect((await allUsers(client(sandbox.url))).length).toBe(0);

    // Without the preflight the 402 comes mid-run, from the TOTP import itself.
    const r = await cli(
      ['run', 'users.ndjson', '--core', sandbox.url, '--yes', '--journal', 'j.ndjson', '--concurrency', '1', '--skip-preflight', '--json'],
      dir,
    );
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/auth-migrate: .*HTTP 402.*MFA feature/);
    const s = summaryOf(r.stdout);
    expect(s).toMatchObject({ imported: 2, failed: 0, stopped: 'fatal' });
    const steps = journalLines(join(dir, 'j.ndjson'))
      .filter((e) => e.type === 'step' || e.type === 'user')
      .map((e) => `${e.user as string}:${(e.step as string | undefined) ?? (e.outcome as string)}`);
    // Per user, in order. A mapping's line comes once the run's listing shows it (mapping-readback.ts), so p2's may
    // follow t3's first lines: the stopping run reads the core once more for the mappings waiting.
    const byUser = (u: string) => steps.filter((l) => l.startsWith(`${u}:`));
    expect([...byUser('p1'), ...byUser('p2'), ...byUser('t3'), ...byUser('p4')]).toEqual([
      'p1:password',
      'p1:imported',
      'p2:password',
      'p2:map',
      'p2:imported',
      't3:password',
      't3:map',
    ]);
    expect(steps).toHaveLength(7);
    // The store agrees: three users, t3 mapped, no device.
    let core = client(sandbox.url);
    expect((await allUsers(core)).length).toBe(3);
    expect((await core.listTotpDevices('ext-t3')).devices).toEqual([]);

    // With a licence (same store, same port: the same target), the same command resumes at t3's device.
    const port = sandbox.port;
    await sandbox.stop();
    sandbox = await startSandbox({ store: join(dir, 'store.json'), port, licenseKey: 'now-licensed-0123456789' });
    core = client(sandbox.url);
    const again = await cli(
      ['run', 'users.ndjson', '--core', sandbox.url, '--yes', '--journal', 'j.ndjson', '--concurrency', '1', '--json'],
      dir,
    );
    expect(again.exitCode, again.stderr).toBe(0);
    expect(summaryOf(again.stdout)).toMatchObject({ total: 4, imported: 2, alreadyPresent: 2, resumed: 2, failed: 0 });
    expect((await core.listTotpDevices('ext-t3')).devices.map((d) => d.name)).toEqual(['TOTP Device 0']);
    expect((await allUsers(core)).length).toBe(4);
  });

  it('an unknown tenant is fatal before any user is written', async () => {
    writeNdjson(join(dir, 'users.ndjson'), [{ id: 'a', email: 'a@example.test', password: { hash: HASH } }]);
    sandbox = await startSandbox({ store: join(dir, 'store.json') });
    const r = await cli(['run', 'users.ndjson', '--core', sandbox.url, '--yes', '--tenant', 'nope', '--json'], dir);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/auth-migrate: nothing was written: the core at .* has no app "public" with tenant "nope"/);
  });

  it('bad usage and unreadable input exit 2 before contacting anything', async () => {
    const noTarget = await cli(['run', 'users.ndjson'], dir);
    expect(noTarget.exitCode).toBe(2);
    expect(noTarget.stderr).toMatch(/--core URL .* or --sandbox/);
    const missing = await cli(['run', 'missing.ndjson', '--core', 'http://127.0.0.1:9', '--yes'], dir);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/^auth-migrate: .*missing\.ndjson/m);
    const both = await cli(['run', 'x.ndjson', '--core', 'http://127.0.0.1:9', '--yes', '--sandbox'], dir);
    expect(both.exitCode).toBe(2);
    const algo = await cli(['run', 'x.ndjson', '--sandbox', '--scrypt-algorithm-name', 'md5'], dir);
    expect(algo.exitCode).toBe(2);
    expect(algo.stderr).toMatch(/--scrypt-algorithm-name must name the scrypt variant/);
    const conc = await cli(['run', 'x.ndjson', '--sandbox', '--concurrency', '0'], dir);
    expect(conc.exitCode).toBe(2);
    expect(conc.stderr).toMatch(/--concurrency/);
  });

  it('source lines that cannot become users are counted as unreadable and make the exit 1', async () => {
    const bad = fileURLToPath(new URL('../../fixtures/broken/bad-lines.ndjson', import.meta.url));
    const r = await cli(['run', bad, '--dry-run', '--json'], dir);
    expect(r.exitCode).toBe(1);
    const s = summaryOf(r.stdout);
    expect(s.unreadable).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/source items could not be read as users and are not migrated/);
  });
});
