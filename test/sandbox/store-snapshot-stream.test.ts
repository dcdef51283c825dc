// The snapshot read record by record on start: every collection (empty ones and values that are not objects
// included) comes back the same, a pretty-printed snapshot (another layout) is still read whole, and a snapshot
// cut short is refused untouched.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Change, type LoginMethod } from '../../src/sandbox/store/index.js';
import { streamSnapshot } from '../../src/sandbox/store/snapshot-stream.js';

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-store-stream-'));
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
  passwordHash: '$2a$05$x}',
});
const changes: Change[] = [
  ...[0, 1, 2].map((i): Change => ({ c: 'users', k: `id-${i}`, v: user(i) })),
  { c: 'mappings', k: 'public\u0000id-1', v: { app: 'public', superTokensUserId: 'id-1', externalUserId: 'ext "1"}' } },
  { c: 'meta', k: 'licenseKey', v: 'key-}' } as unknown as Change,
];

async function written(): Promise<string> {
  const a = await openStore(path);
  await a.commit(changes);
  await a.close();
  return readFileSync(path, 'utf8');
}

describe('sandbox store snapshot, streamed', () => {
  it('reads back every record of every collection, in order, with the seq', async () => {
    await written();
    const seen: Array<[string, string, unknown]> = [];
    const out = await streamSnapshot(path, (c, k, v) => seen.push([c, k, v]));
    expect(out?.seq).toBe(1);
    expect(seen).toEqual(changes.map((ch) => [ch.c, ch.k, ch.v]));
    const b = await openStore(path);
    expect(b.state.maps.users.get('id-2')).toEqual(user(2));
    expect(b.state.epByEmail.size).toBe(3);
    expect(b.state.seq).toBe(1);
    expect(b.stats().snapshotBytes).toBeGreaterThan(0);
    await b.close();
  });

  it('reads a snapshot in another layout (pretty-printed) whole', async () => {
    const text = await written();
    writeFileSync(path, JSON.stringify(JSON.parse(text), null, 2));
    const b = await openStore(path);
    expect([...b.state.maps.users.keys()]).toEqual(['id-0', 'id-1', 'id-2']);
    expect(b.state.maps.meta.get('licenseKey')).toBe('key-}');
    await b.close();
  });

  it('reads a snapshot holding a key twice (edited by hand) whole, the last one winning, its indexes consistent', async () => {
    const text = await written();
    const line = text.split('\n').find((l) => l.startsWith('"id-1":'))!;
    const twice = line.replace('u1@x.io', 'twice@x.io');
    writeFileSync(path, text.replace(line, `${line}\n${twice}`));
    const b = await openStore(path);
    expect(b.state.maps.users.get('id-1')?.email).toBe('twice@x.io');
    expect(b.state.maps.users.size).toBe(3);
    expect(b.state.epByEmail.get('public\u0000public\u0000twice@x.io')).toBe('id-1');
    expect(b.state.epByEmail.get('public\u0000public\u0000u1@x.io')).toBeUndefined();
    expect(b.state.epByEmail.size).toBe(3);
    await b.close();
  });

  it('refuses a damaged snapshot in another layout without quoting its text (it holds password hashes)', async () => {
    const damaged = '{\n  "format": "auth-migrate-sandbox-store",\n  "passwordHash": secret-hash-value\n}\n';
    writeFileSync(path, damaged);
    const err = await openStore(path).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/is not readable \(invalid JSON( at position \d+)?\)/);
    expect(err?.message).not.toContain('secret-hash');
    expect(readFileSync(path, 'utf8')).toBe(damaged);
  });

  it('refuses a snapshot cut short, leaving it untouched', async () => {
    const text = await written();
    const cut = text.slice(0, text.indexOf('"id-2"'));
    writeFileSync(path, cut);
    await expect(openStore(path)).rejects.toThrow(/sandbox store .* (is not readable|refusing to start)/);
    expect(readFileSync(path, 'utf8')).toBe(cut);
  });
});
