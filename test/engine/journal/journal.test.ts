// The journal: group commit reaches the disk, reload restores per-user state, other runs are refused,
// a torn last line is tolerated.
import { fileURLToPath } from 'node:url';
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadJournal, openJournal, type RunIdentity } from '../../../src/engine/journal/journal.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-journal-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Written by version 1 (the journal format before issue 14): run, steps, finished, failed and unfinished users, end. */
const V1_FIXTURE = fileURLToPath(new URL('./fixtures/journal-v1.ndjson', import.meta.url));
const identity: RunIdentity = { sources: ['/data/users.ndjson'], target: 'http://core:3567 tenant=public app=public' };

describe('journal', () => {
  it('writes JSON lines with mode 0600 and restores steps and outcomes', async () => {
    const path = join(dir, 'j.ndjson');
    const j = await openJournal(path, identity, { intervalMs: 5 });
    j.append({ type: 'step', user: 'u1', step: 'password', result: 'created', ids: { recipeUserId: 'r1' } });
    j.append({ type: 'step', user: 'u1', step: 'map', result: 'already', ids: { externalUserId: 'e1' } });
    j.append({ type: 'user', user: 'u1', outcome: 'imported' });
    j.append({ type: 'user', user: 'u2', outcome: 'failed', step: 'password', status: 'HTTP 400' });
    await j.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ type: 'run', version: 2, identity });
    // Version 2 lines: no "type"; the outcome of a user that finished with a step written on that step's line.
    expect(lines.slice(1)).toEqual([
      '{"user":"u1","step":"password","created":{"recipeUserId":"r1"}}',
      '{"user":"u1","step":"map","already":{"externalUserId":"e1"},"outcome":"imported"}',
      '{"user":"u2","outcome":"failed","step":"password","status":"HTTP 400"}',
    ]);

    const again = await openJournal(path, identity);
    expect(again.users.get('u1')?.outcome).toBe('imported');
    // A finished user is kept small: its recipe user ids remain, other step ids are dropped.
    expect(again.users.get('u1')?.steps.get('password')?.ids).toEqual({ recipeUserId: 'r1' });
    expect(again.users.get('u1')?.steps.get('map')).toBeUndefined();
    expect(again.users.get('u1')?.steps.size).toBe(2);
    expect(again.users.get('u2')?.outcome).toBe('failed');
    await again.close();
  });

  it('a `staged` line (bulk-staged write-ahead) leaves the user in doubt until a later line settles it', async () => {
    const path = join(dir, 'j.ndjson');
    const j = await openJournal(path, identity, { intervalMs: 5 });
    j.append({ type: 'staged', user: 'u1', joined: 1_528_000_000_000 });
    j.append({ type: 'staged', user: 'u2', joined: 1_528_000_000_001 });
    j.append({ type: 'staged', user: 'u3', joined: 7 });
    j.append({ type: 'step', user: 'u2', step: 'bulk-staged', result: 'created', ids: { recipeUserId: 'r2' } });
    j.append({ type: 'user', user: 'u2', outcome: 'imported' });
    j.append({ type: 'user', user: 'u3', outcome: 'failed', step: 'bulk-staged', status: 'BULK_IMPORT_FAILED' });
    await j.close();
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(lines[1]).toBe('{"user":"u1","staged":1528000000000}');
    const again = await loadJournal(path);
    expect(again.users.get('u1')).toMatchObject({ staged: 1_528_000_000_000 });
    expect(again.users.get('u1')?.outcome).toBeUndefined();
    expect(again.users.get('u2')?.outcome).toBe('imported');
    expect(again.users.get('u2')?.steps.get('bulk-staged')?.ids).toEqual({ recipeUserId: 'r2' });
    expect(again.users.get('u3')).toMatchObject({ outcome: 'failed' });
    expect(again.users.get('u3')?.staged).toBeUndefined();
  });

  it('flushes on the group-commit timer without an explicit flush', async () => {
    const path = join(dir, 'j.ndjson');
    const j = await openJournal(path, identity, { intervalMs: 10 });
    j.append({ type: 'user', user: 'u9', outcome: 'alreadyPresent' });
    const deadline = Date.now() + 5000;
    while (!readFileSync(path, 'utf8').includes('"u9"')) {
      if (Date.now() > deadline) throw new Error('group commit never reached the disk');
      await new Promise((r) => setTimeout(r, 5));
    }
    await j.close();
  });

  it('refuses a journal written for another target', async () => {
    const path = join(dir, 'j.ndjson');
    await (await openJournal(path, identity)).close();
    await expect(openJournal(path, { ...identity, target: 'http://other:3567 tenant=public app=public' })).rejects.toThrow(
      /belongs to another run .*http:\/\/core:3567.*this run is .*http:\/\/other:3567/,
    );
  });

  it('tolerates a torn last line and appends after it on a new line', async () => {
    const path = join(dir, 'j.ndjson');
    const j = await openJournal(path, identity);
    j.append({ type: 'step', user: 'u1', step: 'password', result: 'created', ids: { recipeUserId: 'r1' } });
    await j.close();
    appendFileSync(path, '{"type":"step","user":"u1","step":"ma');
    const j2 = await openJournal(path, identity);
    const steps = j2.users.get('u1')!.steps;
    expect([steps.size, steps.get('password')?.result, steps.get('map')]).toEqual([1, 'created', undefined]);
    j2.append({ type: 'user', user: 'u1', outcome: 'imported' });
    await j2.close();
    const loaded = await loadJournal(path);
    expect(loaded.users.get('u1')?.outcome).toBe('imported');
  });

  it('loads and resumes a journal written by version 1 (every line with its type), then reads both versions', async () => {
    const path = join(dir, 'j.ndjson');
    copyFileSync(V1_FIXTURE, path);
    const j = await openJournal(path, identity);
    expect(j.users.get('u1')).toMatchObject({ outcome: 'imported' });
    expect(j.users.get('u1')!.steps.get('password')?.ids).toEqual({ recipeUserId: 'r1' });
    expect(j.users.get('u2')).toMatchObject({ outcome: 'failed' });
    expect(j.users.get('u2')!.steps.get('thirdparty:google:g2')?.ids).toEqual({ recipeUserId: 'r2' });
    expect(j.users.get('u3')!.outcome).toBeUndefined();
    expect(j.users.get('u3')!.steps.get('password')?.result).toBe('already');
    expect(j.users.get('u4')).toMatchObject({ outcome: 'alreadyPresent' });
    // The resumed run finishes u3 and retries u2, in version 2 lines after the version 1 ones.
    j.append({ type: 'step', user: 'u3', step: 'map', result: 'created', ids: { externalUserId: 'e3' } });
    j.append({ type: 'user', user: 'u3', outcome: 'imported' });
    j.append({ type: 'step', user: 'u2', step: 'totp:phone', result: 'created', ids: { deviceName: 'phone' } });
    j.append({ type: 'user', user: 'u2', outcome: 'imported' });
    await j.close();
    const loaded = await loadJournal(path);
    expect([...loaded.users].map(([u, e]) => `${u} ${e.outcome} ${e.steps.size}`).sort()).toEqual([
      'u1 imported 2',
      'u2 imported 2',
      'u3 imported 2',
      'u4 alreadyPresent 0',
    ]);
    expect(loaded.users.get('u3')!.steps.get('password')?.ids).toEqual({ recipeUserId: 'r3' });
  });

  it('refuses a file that is not a journal', async () => {
    const path = join(dir, 'users.ndjson');
    appendFileSync(path, '{"id":"u1","email":"a@x.io"}\n');
    await expect(openJournal(path, identity)).rejects.toThrow(/not an auth-migrate journal/);
  });

  it('write-ahead: an intent is on the disk when appendDurable resolves, one sync for a burst, and settled by its step line', async () => {
    const path = join(dir, 'wal.ndjson');
    // A group-commit interval far longer than the test: only appendDurable can have put the lines on the disk.
    const j = await openJournal(path, identity, { intervalMs: 60_000 });
    const who = { kind: 'import-password', email: 'a@example.test' };
    await Promise.all([
      j.appendDurable({ type: 'intent', user: 'a', step: 'password', who }),
      j.appendDurable({ type: 'intent', user: 'b', step: 'password', who: { ...who, email: 'b@example.test' } }),
    ]);
    const onDisk = readFileSync(path, 'utf8').trim().split('\n');
    expect(onDisk.slice(1)).toEqual([
      '{"user":"a","intent":"password","who":{"kind":"import-password","email":"a@example.test"}}',
      '{"user":"b","intent":"password","who":{"kind":"import-password","email":"b@example.test"}}',
    ]);
    j.append({ type: 'step', user: 'a', step: 'password', result: 'created', ids: { recipeUserId: 'r-a' } });
    await j.close();
    // Reloaded: a's intent is settled by its step line; b's is still open (the run stopped around its request).
    const loaded = await loadJournal(path);
    expect(loaded.users.get('a')?.intents?.size ?? 0).toBe(0);
    expect(loaded.users.get('b')?.intents?.get('password')).toEqual({ kind: 'import-password', email: 'b@example.test' });
  });
});
