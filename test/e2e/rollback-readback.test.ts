// A removal counts when it is read back, not when it is answered (issue 20, "A write is proven by reading it back"):
// a proxy in front of the sandbox answers some POST /user/remove with 200 OK and removes nothing (as the reference
// does for an id it does not know). The rollback lists exactly those users as failed, exit 1, whether it reads
// removals back one by one (a few users) or from the listing (many); the same command then finishes the job.
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { allUsers, cli, client, LICENSE, summaryOf } from '../support/cli.js';
import { generateUsers, writeNdjson } from '../support/users.js';

let dir: string;
let sandbox: RunningSandbox;
let proxy: http.Server;
let proxyUrl: string;
/** When set, every n-th POST /user/remove is answered OK without reaching the core. */
let hollowEvery = 0;
let removals = 0;
let hollowed = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-rollback-readback-'));
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE });
  const target = new URL(sandbox.url);
  proxy = http.createServer((req, res) => {
    if (req.method === 'POST' && req.url?.endsWith('/user/remove') && hollowEvery > 0 && ++removals % hollowEvery === 0) {
      hollowed++;
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"OK"}');
      return;
    }
    const fwd = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    req.pipe(fwd);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => proxy?.close(r));
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.each([
  ['one by one', 6, 'f'],
  ['from the listing', 60, 'm'],
])('rollback reads removals back %s', (_, n, p) => {
  it('and lists each user an OK left in place as failed, exit 1; the same command then removes them', async () => {
    writeNdjson(join(dir, `${p}.ndjson`), generateUsers(n, { prefix: p, simple: true }).users);
    const run = await cli(['run', `${p}.ndjson`, '--core', proxyUrl, '--yes', '--journal', `${p}.ndjson.journal`, '--json'], dir);
    expect(run.exitCode, run.stderr).toBe(0);
    [hollowEvery, removals, hollowed] = [3, 0, 0];
    const r = await cli(['rollback', '--journal', `${p}.ndjson.journal`, '--yes', '--json'], dir);
    hollowEvery = 0;
    expect(r.exitCode, r.stderr).toBe(1);
    expect(hollowed).toBe(Math.floor(n / 3));
    expect(summaryOf(r.stdout)).toMatchObject({ removed: n - hollowed, failed: hollowed });
    expect(r.stderr).toMatch(/failed: user \S+: .*(still there|still lists)/);
    expect((await allUsers(client(sandbox.url))).length).toBe(hollowed);

    const again = await cli(['rollback', '--journal', `${p}.ndjson.journal`, '--yes', '--json'], dir);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(summaryOf(again.stdout)).toMatchObject({ removed: hollowed, failed: 0 });
    expect(await allUsers(client(sandbox.url))).toEqual([]);
  });
});
