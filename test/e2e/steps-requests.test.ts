// `run --via steps` sends what a bare script sends (issue 35): on an empty sandbox core, the same users through a
// counting proxy, the tool makes the bare script's writes one for one (bench/lib/bare.js, as a process:
// bench/lib/bare-cli.js), no look-up (one bulk read of the core and its refreshes instead), and reads back each
// external id mapping (issue 31) from those refreshes; its requests per user are within 2% of the bare script's. The run says how
// it learns what the core holds. Counts, not times: the knowledge's refreshes come once a second or, on a run
// slowed down by the machine's load, once for about 64 users (steps-knowledge.ts), so the count holds either way.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import bcrypt from 'bcryptjs';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CanonicalUser } from '../../src/records/types.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { startCountProxy, type CountProxy } from '../support/count-proxy.js';
import { allUsers, cleanEnv, cli, client, LICENSE } from '../support/cli.js';
import { writeNdjson } from '../support/users.js';

vi.setConfig({ testTimeout: 300_000 });

const BARE = fileURLToPath(new URL('../../bench/lib/bare-cli.js', import.meta.url));
const N = 1_200;
const CONCURRENCY = 16;
const HASHES = [0, 1, 2].map((k) => bcrypt.hashSync(`pw-${k}`, 4));

/** The real-core bench's population (bench/sections/real-core.js), bcrypt only: 60% email-password (half verified), 20% social, 20% phone; a third with an external id. */
function population(n: number): CanonicalUser[] {
  return Array.from({ length: n }, (_, i) => {
    const u: CanonicalUser = { id: `r${i}` };
    const b = i % 10;
    if (b < 6) Object.assign(u, { email: `u${i}@example.test`, emailVerified: i % 2 === 0, password: { hash: HASHES[i % 3]! } });
    else if (b < 8)
      Object.assign(u, {
        email: `u${i}@example.test`,
        thirdParty: [{ providerId: 'google', userId: `tp-${i}`, email: `u${i}@example.test`, emailVerified: true }],
      });
    else u.phoneNumber = `+1415${String(3_000_000 + i)}`;
    if (i % 3 === 0) u.externalUserId = `ext-${i}`;
    return u;
  });
}

let dir: string;
const proxies: CountProxy[] = [];
const sandboxes: RunningSandbox[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-steps-requests-'));
});
afterEach(async () => {
  for (const p of proxies.splice(0)) await p.close();
  for (const s of sandboxes.splice(0)) await s.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** An empty sandbox core behind a counting proxy. */
async function emptyCore(name: string): Promise<{ sandbox: RunningSandbox; proxy: CountProxy }> {
  const sandbox = await startSandbox({ store: join(dir, `${name}.json`), licenseKey: LICENSE });
  const proxy = await startCountProxy(sandbox.url);
  sandboxes.push(sandbox);
  proxies.push(proxy);
  return { sandbox, proxy };
}

describe('run --via steps: the bare script requests', () => {
  it("the bare script's writes, no look-up, mappings read back by the listings, within 2% of its requests per user; says it read the core in bulk", async () => {
    const users = population(N);
    writeNdjson(join(dir, 'users.ndjson'), users);

    const bare = await emptyCore('bare');
    const b = await execa(process.execPath, [BARE, 'steps', join(dir, 'users.ndjson'), bare.proxy.url, String(CONCURRENCY)], {
      env: cleanEnv(),
      extendEnv: false,
    });
    const bareSaid = JSON.parse(b.stdout.trim().split('\n').at(-1)!) as { requests: number };
    expect(bare.proxy.total()).toBe(bareSaid.requests); // the proxy counts what the script sent
    expect(await allUsers(client(bare.sandbox.url))).toHaveLength(N);

    const tool = await emptyCore('tool');
    const args = ['run', 'users.ndjson', '--core', tool.proxy.url, '--yes', '--via', 'steps', '--concurrency', String(CONCURRENCY)];
    const r = await cli([...args, '--journal', 'j.ndjson', '--json'], dir);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().split('\n').at(-1)!)).toMatchObject({ total: N, imported: N, failed: 0 });
    expect(await allUsers(client(tool.sandbox.url))).toHaveLength(N);
    expect(r.stderr).toContain('the core holds 0 users');
    expect(r.stderr).toContain('read once in bulk');

    // No user was looked up: the core was known empty, and what the run made itself it does not ask about.
    expect(tool.proxy.counts.get('GET /users/by-accountinfo') ?? 0).toBe(0);
    // The same writes as the bare script, one for one.
    expect(tool.proxy.writes()).toBe(bare.proxy.writes());
    // The mappings it made are read back too (the core's OK names no id: issue 31), but by the listings that keep the
    // knowledge fresh (mapping-readback.ts), not one GET /recipe/userid/map each as without them.
    const mapped = users.filter((u) => u.externalUserId !== undefined).length;
    expect(mapped).toBe(400);
    expect(tool.proxy.counts.get('GET /recipe/userid/map') ?? 0).toBe(0);
    const journal = readFileSync(join(dir, 'j.ndjson'), 'utf8');
    expect(journal.match(/"step":"map","created":/g)).toHaveLength(mapped);
    // Every request the tool sends (its checks of the core, the bulk read and its refreshes with the writes): within 2%
    // of the bare script's requests per user.
    const perUser = { bare: bare.proxy.total() / N, tool: tool.proxy.total() / N };
    const counts = Object.fromEntries([...tool.proxy.counts].sort());
    expect(perUser.tool / perUser.bare, JSON.stringify({ perUser, counts })).toBeLessThanOrEqual(1.02);
  });
});
