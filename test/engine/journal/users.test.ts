// The journal's per-user state: finished users packed into one string each, unfinished and failed users with
// their step maps, a finished user redone by a later run, and a journal of finished users loaded packed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadJournal, type RunIdentity } from '../../../src/engine/journal/journal.js';
import { FinishedSteps, JournalUsers } from '../../../src/engine/journal/users.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-journal-users-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const identity: RunIdentity = { sources: ['/data/users.ndjson'], target: 'http://core:3567 tenant=public app=public' };

describe('JournalUsers', () => {
  it('keeps outcomes and recipe user ids of finished users, full steps of the others, and redoes a finished user', () => {
    const users = new JournalUsers();
    users.step('a', 'password', { result: 'created', ids: { recipeUserId: 'r-a' } });
    users.step('a', 'totp:0', { result: 'created', ids: { deviceName: 'd' } });
    users.outcome('a', 'imported');
    users.step('b', 'thirdparty:0', { result: 'already', ids: { recipeUserId: 'r-b' } });
    users.outcome('b', 'failed');
    users.step('c', 'password', { result: 'created', ids: { recipeUserId: 'r-c' } });
    users.outcome('d', 'alreadyPresent');
    expect(users.size).toBe(4);
    expect(users.get('a')).toMatchObject({ outcome: 'imported' });
    expect(users.get('a')!.steps.size).toBe(2);
    expect(users.get('a')!.steps.get('password')?.ids).toEqual({ recipeUserId: 'r-a' });
    expect(users.get('a')!.steps.get('totp:0')).toBeUndefined();
    expect(users.get('b')).toMatchObject({ outcome: 'failed' });
    expect(users.get('b')!.steps.get('thirdparty:0')).toEqual({ result: 'already', ids: { recipeUserId: 'r-b' } });
    expect(users.get('c')!.outcome).toBeUndefined();
    expect(users.get('d')).toMatchObject({ outcome: 'alreadyPresent' });
    expect(users.get('d')!.steps.size).toBe(0);
    expect(users.get('zz')).toBeUndefined();
    // A later run redoes 'a': its steps start afresh, then it finishes again.
    users.step('a', 'password', { result: 'already', ids: { recipeUserId: 'r-a2' } });
    expect(users.get('a')!.outcome).toBeUndefined();
    users.outcome('a', 'alreadyPresent');
    expect(users.get('a')!.steps.get('password')?.ids.recipeUserId).toBe('r-a2');
    expect([...users].map(([u, s]) => [u, s.outcome]).sort()).toEqual([
      ['a', 'alreadyPresent'],
      ['b', 'failed'],
      ['c', undefined],
      ['d', 'alreadyPresent'],
    ]);
  });

  // The heap this takes (bytes per user) is a benchmark figure (npm run bench, section journal): measured inside a
  // test worker it varied with whatever else the worker had allocated, and failed CI at 183 against 118-128 alone.
  it('loads a journal of 50,000 finished users packed: no step map is kept for any of them', async () => {
    const path = join(dir, 'big.ndjson');
    const n = 50_000;
    writeBigJournal(path, n);
    const loaded = await loadJournal(path);
    expect(loaded.users.size).toBe(n);
    expect(loaded.users.openCount).toBe(0);
    const steps = loaded.users.get('user-123')!.steps;
    expect(steps).toBeInstanceOf(FinishedSteps);
    expect(steps.get('password')?.ids.recipeUserId).toBe('0b5a4c1e-1d63-4b8e-9c4c-000000000123');
    expect(loaded.users.get(`user-${n - 1}`)).toMatchObject({ outcome: 'imported' });
    expect(loaded.users.get(`user-${n}`)).toBeUndefined();
  }, 60_000);
});

/** Written by a function of its own, so that none of its text is still referenced when the heap is measured. */
function writeBigJournal(path: string, n: number): void {
  const lines = [JSON.stringify({ type: 'run', version: 1, identity, id: 'x', startedAt: new Date(0).toISOString() })];
  for (let i = 0; i < n; i++) {
    const rid = `0b5a4c1e-1d63-4b8e-9c4c-${String(i).padStart(12, '0')}`;
    lines.push(JSON.stringify({ type: 'step', user: `user-${i}`, step: 'password', result: 'created', ids: { recipeUserId: rid } }));
    lines.push(JSON.stringify({ type: 'user', user: `user-${i}`, outcome: 'imported' }));
  }
  writeFileSync(path, lines.join('\n') + '\n');
}
