// The store module on its own: replay after a crash (no close), a torn last line, damage refused,
// group commit (one fsync for a burst), background snapshot rewrite, corrupt snapshot refused untouched.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { logPathOf, openStore, type Change, type LoginMethod } from '../../src/sandbox/store/index.js';

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-store-test-'));
  path = join(dir, 'store.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const user = (i: number): LoginMethod => ({
  app: 'public',
  id: `id-${i}`,
  recipeId: 'emailpassword',
  tenantIds: ['public'],
  timeJoined: 1000 + i,
  email: `u${i}@x.io`,
  passwordHash: '$2a$05$x',
});
const put = (i: number): Change => ({ c: 'users', k: `id-${i}`, v: user(i) });

describe('sandbox store', () => {
  it('replays the log when the process died without closing, with indexes rebuilt', async () => {
    const a = await openStore(path);
    try {
      await Promise.all([0, 1, 2].map((i) => a.commit([put(i)])));
      // No close(): as after SIGKILL. A second open reads the snapshot plus the log.
      const b = await openStore(path);
      expect([...b.state.maps.users.keys()].sort()).toEqual(['id-0', 'id-1', 'id-2']);
      expect(b.state.epByEmail.get(['public', 'public', 'u1@x.io'].join('\u0000'))).toBe('id-1');
      await b.close();
    } finally {
      await a.close(); // the "crashed" store's log handle, released once the checks are done
    }
  });

  it('replays a log of many read chunks line by line, and names a damaged line deep in it without its content', async () => {
    const n = 3000; // ~600 KB of log: lines cross the reader's 64 KiB chunks
    const lines = Array.from({ length: n }, (_, i) => JSON.stringify({ s: i + 1, o: [put(i)] }));
    writeFileSync(logPathOf(path), lines.join('\n') + '\n\n');
    const b = await openStore(path);
    expect(b.state.maps.users.size).toBe(n);
    expect(b.state.seq).toBe(n);
    expect(b.state.maps.users.get('id-2999')).toEqual(user(2999));
    await b.close();
    const secret = '{"s":9999,"o":[{"c":"users","k":"x","v":{"passwordHash":"$2a$05$secret-hash';
    lines.splice(1700, 0, secret);
    writeFileSync(logPathOf(path), lines.join('\n') + '\n');
    const err = await openStore(path).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/store log .*store\.json\.log is damaged at line 1701 /);
    expect(err?.message).not.toContain('secret-hash');
  });

  it('ignores a torn last line but refuses a damaged line in the middle', async () => {
    const a = await openStore(path);
    try {
      await a.commit([put(0)]);
      await a.commit([put(1)]);
      appendFileSync(logPathOf(path), '{"s":3,"o":[{"c":"users","k":"id-2","v":{"app');
      const b = await openStore(path);
      try {
        expect([...b.state.maps.users.keys()].sort()).toEqual(['id-0', 'id-1']);
        await b.commit([put(5)]);
        writeFileSync(logPathOf(path), 'garbage\n' + readFileSync(logPathOf(path), 'utf8'));
        await expect(openStore(path)).rejects.toThrow(/store log .*store\.json\.log is damaged at line 1/);
      } finally {
        await b.close();
      }
    } finally {
      await a.close(); // as above: release the "crashed" store's log handle after the checks
    }
  });

  it('group commit: a burst of concurrent commits shares a few fsyncs', async () => {
    const s = await openStore(path);
    const before = s.stats().groups;
    await Promise.all(Array.from({ length: 200 }, (_, i) => s.commit([put(i)])));
    const groups = s.stats().groups - before;
    expect(groups).toBeGreaterThanOrEqual(1);
    expect(groups).toBeLessThan(10);
    expect(s.state.maps.users.size).toBe(200);
    await s.close();
  });

  it('overlapping flushes: a commit resolves only once its line is in the log, and the lines keep commit order', async () => {
    const s = await openStore(path);
    const missing: number[] = [];
    // Commits arrive in waves while earlier groups are still being flushed (two fdatasyncs may overlap).
    await Promise.all(
      Array.from({ length: 300 }, async (_, i) => {
        for (let k = 0; k < i % 5; k++) await new Promise((r) => setImmediate(r));
        await s.commit([put(i)]);
        if (!readFileSync(logPathOf(path), 'utf8').includes(`"k":"id-${i}"`)) missing.push(i);
      }),
    );
    expect(missing).toEqual([]);
    const seqs = readFileSync(logPathOf(path), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => (JSON.parse(l) as { s: number }).s);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, j) => seqs[0]! + j));
    expect(seqs.length).toBeGreaterThanOrEqual(300);
    await s.close();
  });
  it('rewrites the snapshot in the background once the log outgrows it, and loses nothing', async () => {
    const s = await openStore(path, { minCompactBytes: 2000 });
    let written = 0;
    for (let i = 0; i < 60; i++) {
      await s.commit([put(i)]);
      written += JSON.stringify({ s: i + 1, o: [put(i)] }).length + 1;
    }
    await s.compacted();
    // The log was cut at least once: it holds less than everything written.
    expect(s.stats().logBytes).toBeLessThan(written);
    const snap = JSON.parse(readFileSync(path, 'utf8')) as { seq: number };
    expect(snap.seq).toBeGreaterThan(0);
    const again = await openStore(path);
    expect(again.state.maps.users.size).toBe(60);
    await again.close();
  });

  it('keeps the /users order (timeJoined ASC, id DESC) incrementally, also for users of the same millisecond', async () => {
    const s = await openStore(path);
    const ids = ['b', 'd', 'a', 'c', 'e', 'f'];
    const times = [5, 5, 5, 6, 6, 6];
    for (let i = 0; i < ids.length; i++) {
      await s.commit([{ c: 'users', k: ids[i]!, v: { ...user(i), id: ids[i]!, timeJoined: times[i]! } }]);
    }
    const order = s.state.userOrder.get('public')!;
    expect(order.dirty).toBe(false);
    expect(s.state.orderedUsers('public').map((e) => e.id)).toEqual(['d', 'b', 'a', 'f', 'e', 'c']);
    // An older timestamp cannot be appended: the order is rebuilt on the next listing.
    await s.commit([{ c: 'users', k: 'z', v: { ...user(9), id: 'z', timeJoined: 1 } }]);
    expect(s.state.orderedUsers('public').map((e) => e.id)).toEqual(['z', 'd', 'b', 'a', 'f', 'e', 'c']);
    await s.close();
  });

  it('refuses a corrupt snapshot, naming the file and leaving it untouched', async () => {
    for (const content of ['{"users": [1,2', '{"some":"other json"}', 'not json at all']) {
      writeFileSync(path, content);
      await expect(openStore(path)).rejects.toThrow(path);
      expect(readFileSync(path, 'utf8')).toBe(content);
    }
  });

  it('removes snapshot temp files a crash left behind', async () => {
    writeFileSync(`${path}.tmp-12345`, 'half a snapshot');
    const s = await openStore(path);
    await s.close();
    expect(() => readFileSync(`${path}.tmp-12345`)).toThrow();
  });

  it('close() folds everything into the lowdb snapshot and removes the log', async () => {
    const s = await openStore(path);
    await s.commit([put(1), { c: 'meta', k: 'license', v: { value: 'k' } }]);
    await s.close();
    const snap = JSON.parse(readFileSync(path, 'utf8')) as { collections: { users: Record<string, unknown> } };
    expect(snap.collections.users['id-1']).toEqual(user(1));
    expect(() => readFileSync(logPathOf(path))).toThrow();
  });
});
