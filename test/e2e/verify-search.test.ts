// End to end: `auth-migrate verify` without a journal finds users by account info through the sandbox's
// /users search, one request per user, and never falls back to paging through every user. The CLI talks to
// the real sandbox through a recording proxy, which is how the requests are counted.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { cli, LICENSE, summaryOf } from '../support/cli.js';
import { generateUsers, SCRYPT_SIGNER_KEY, writeNdjson } from '../support/users.js';

let dir: string;
let sandbox: RunningSandbox;
let proxy: Server;
let proxyUrl: string;
const seen: string[] = [];
// More users than one default page (100): a core ignoring the search would answer its first page, which
// holds only some of them, and verify would then page through everyone.
const set = generateUsers(160, { prefix: 's' });

/** Forwards every request to the sandbox unchanged and records its method and path. */
function startProxy(target: URL): Promise<Server> {
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const up = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-verify-search-'));
  writeNdjson(join(dir, 'users.ndjson'), set.users);
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE, signerKey: SCRYPT_SIGNER_KEY });
  const r = await cli(['run', 'users.ndjson', '--core', sandbox.url, '--yes', '--json'], dir);
  expect(r.exitCode, r.stderr).toBe(0);
  proxy = await startProxy(new URL(sandbox.url));
  const addr = proxy.address();
  if (!addr || typeof addr === 'string') throw new Error('proxy has no port');
  proxyUrl = `http://127.0.0.1:${addr.port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('verify finds users through the /users search', () => {
  it('every user is found, by one search each for those without an external id, and no paging', async () => {
    // A directory without the run's journal, so verify cannot use the ids it recorded.
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    writeNdjson(join(elsewhere, 'users.ndjson'), set.users);
    const r = await cli(['verify', 'users.ndjson', '--core', proxyUrl, '--json'], elsewhere);
    expect(r.exitCode, r.stderr).toBe(0);
    const v = summaryOf(r.stdout) as { total: number; ok: number; missing: number };
    expect(v.total).toBe(set.users.length);
    expect(v.ok).toBe(set.users.length);

    const users = seen.filter((s) => s.startsWith('GET /users?') || s === 'GET /users');
    const searches = users.filter((s) => /[?&](email|phone|provider)=/.test(s));
    const paging = users.filter((s) => !/[?&](email|phone|provider)=/.test(s) && !/[?&]limit=1(&|$)/.test(s));
    const withoutExternal = set.users.filter((u) => !u.externalUserId).length;
    expect(withoutExternal).toBeGreaterThan(0);
    expect(searches).toHaveLength(withoutExternal);
    expect(paging).toEqual([]);
  });
});
