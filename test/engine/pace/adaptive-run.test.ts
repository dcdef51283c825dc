// The runner adapts how many users it migrates at once to the core: behind a proxy that answers 500 (as the
// reference core's in-memory storage does under lock contention) whenever more than a few requests are in flight,
// a run at --concurrency 32 backs off, says so in its events, and still ends exact against the real sandbox.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoreClient } from '../../../src/core-client/client.js';
import type { RunEvent } from '../../../src/engine/events.js';
import { openJournal } from '../../../src/engine/journal/journal.js';
import { startMigration, type ValidatedRecord } from '../../../src/engine/runner.js';
import { WRITE_PATHS } from '../../../src/engine/strategies/index.js';
import type { CanonicalUser } from '../../../src/records/types.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/spawn.js';
import { allUsers, client, LICENSE } from '../../support/cli.js';

const HASH = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
const USERS = 150;
/** More requests than this in flight at the proxy: a 500 without forwarding. */
const CAPACITY = 4;

let dir: string;
let sandbox: RunningSandbox;
let proxy: http.Server;
let proxyUrl: string;
const seen = { forwarded: 0, refused: 0, maxInFlight: 0 };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-adaptive-'));
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE });
  const target = new URL(sandbox.url);
  let inFlight = 0;
  proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (inFlight >= CAPACITY) {
        seen.refused += 1;
        res.writeHead(500, { 'content-type': 'text/html' }).end('java.sql.SQLException: database is locked (test proxy)');
        return;
      }
      inFlight += 1;
      seen.maxInFlight = Math.max(seen.maxInFlight, inFlight);
      seen.forwarded += 1;
      const out = http.request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (c: Buffer) => body.push(c));
          answer.on('end', () => {
            inFlight -= 1;
            res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(body));
          });
        },
      );
      out.on('error', () => {
        inFlight -= 1;
        res.destroy();
      });
      out.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await sandbox.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function* inputs(list: CanonicalUser[]): AsyncIterable<ValidatedRecord> {
  for (const [i, record] of list.entries()) yield { record, origin: { file: 'u.ndjson', line: i + 1 }, valid: true, problems: [] };
}

describe('adaptive concurrency in a run', () => {
  it('backs off under contention 500s, shows the live value in events, and ends exact', async () => {
    const list: CanonicalUser[] = Array.from({ length: USERS }, (_, i) => ({
      id: `a${i}`,
      email: `a${i}@x.io`,
      password: { hash: HASH },
      ...(i % 3 === 0 ? { thirdParty: [{ providerId: 'google', userId: `g${i}` }] } : {}),
    }));
    const core = createCoreClient({ url: proxyUrl, retry: { retries: 30, baseDelayMs: 2, maxDelayMs: 40 } });
    const journal = await openJournal(join(dir, 'run.journal'), { sources: ['u.ndjson'], target: proxyUrl });
    const events: RunEvent[] = [];
    try {
      const run = startMigration({
        inputs: inputs(list),
        total: USERS,
        strategy: WRITE_PATHS.steps.strategy(),
        core,
        journal,
        concurrency: 32,
        onEvent: (e) => events.push(e),
      });
      const summary = await run.done;
      if (summary.fatal) throw summary.fatal;
      expect(summary.totals).toMatchObject({ imported: USERS, failed: 0, skipped: 0 });
    } finally {
      await journal.close();
      core.close();
    }
    const limits = events.flatMap((e) => (e.type === 'concurrency' ? [e] : []));
    expect(seen.refused).toBeGreaterThan(0);
    // It backed off well below 32, never above it, and said why.
    expect(Math.min(...limits.map((e) => e.limit))).toBeLessThanOrEqual(8);
    expect(Math.max(...limits.map((e) => e.limit))).toBeLessThanOrEqual(32);
    expect(limits.every((e) => e.max === 32)).toBe(true);
    expect(limits[0]!.reason).toMatch(/answers were 5xx, resets or timeouts/);
    // Exact: one user per source user, each with its Google login where it has one.
    const inCore = await allUsers(client(sandbox.url));
    expect(inCore).toHaveLength(USERS);
    expect(inCore.filter((u) => u.loginMethods.some((m) => m.recipeId === 'thirdparty'))).toHaveLength(USERS / 3);
  });
});
