// The production failure of issue 9, rehearsed: a core of the 11.4 line applies a link, answers 500, and answers
// the client's retry with RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR whose primaryUserId is
// the user's own primary under its **external** id (cores before the 12.0.5 fix answer a repeated link so; the
// sandbox answers as 12.0.5+). A proxy in front of the sandbox turns every link answer into that: the first one
// into a 500 after the write, the repeat into the old status. Every user must end linked, with its TOTP device.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { cli, client, LICENSE, summaryOf } from '../support/cli.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
const USERS = 20;

let dir: string;
let sandbox: RunningSandbox;
let proxy: http.Server;
let proxyUrl: string;
const seen = { lost: 0, rewritten: 0 };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-oldlink-'));
  const users = Array.from({ length: USERS }, (_, i) => ({
    id: `o${i}`,
    email: `o${i}@example.test`,
    externalUserId: `ext-o${i}`,
    password: { hash: BCRYPT },
    thirdParty: [{ providerId: 'google', userId: `g-o${i}`, emailVerified: true }],
    totp: [{ secret: 'JBSWY3DPEHPK3PXP', deviceName: 'phone' }],
  }));
  writeFileSync(join(dir, 'users.ndjson'), users.map((u) => JSON.stringify(u)).join('\n') + '\n');
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE });
  const target = new URL(sandbox.url);
  proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const up = http.request(
        { hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (c: Buffer) => body.push(c));
          answer.on('end', () => {
            const text = Buffer.concat(body).toString('utf8');
            if (req.method === 'POST' && req.url === '/recipe/accountlinking/user/link' && answer.statusCode === 200) {
              const json = JSON.parse(text) as { status: string; accountsAlreadyLinked?: boolean; user?: { id: string } };
              if (json.status === 'OK' && json.accountsAlreadyLinked === false) {
                seen.lost += 1;
                res.writeHead(500, { 'Content-Type': 'text/html; charset=UTF-8' });
                res.end('java.lang.RuntimeException: StorageQueryException\n');
                return;
              }
              if (json.status === 'OK' && json.accountsAlreadyLinked === true) {
                seen.rewritten += 1;
                const old = JSON.stringify({
                  status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
                  primaryUserId: json.user!.id,
                  description: 'The input recipe user ID is already linked to another user ID',
                  user: json.user,
                });
                res.writeHead(200, { 'Content-Type': 'application/json; charset=UTF-8' });
                res.end(old + '\n');
                return;
              }
            }
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(text);
          });
        },
      );
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise<void>((r) => (proxy ? proxy.close(() => r()) : r()));
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a core that answers a repeated link as "already linked to another primary" with our external id', () => {
  it('every user ends linked to its own primary, with its TOTP device, and none failed', async () => {
    const r = await cli(['run', 'users.ndjson', '--core', proxyUrl, '--yes', '--concurrency', '8', '--journal', 'j.ndjson', '--json'], dir);
    expect(r.exitCode, r.stderr.slice(-1500)).toBe(0);
    expect(summaryOf(r.stdout)).toMatchObject({ total: USERS, imported: USERS, failed: 0 });
    expect(seen.lost).toBe(USERS);
    expect(seen.rewritten).toBe(USERS);
    const core = client(sandbox.url);
    for (let i = 0; i < USERS; i++) {
      const u = await core.getUserById(`ext-o${i}`);
      expect(u.status === 'OK' && u.user.loginMethods.map((m) => m.recipeId).sort()).toEqual(['emailpassword', 'thirdparty']);
      expect((await core.listTotpDevices(`ext-o${i}`)).devices.map((d) => d.name)).toEqual(['phone']);
    }
    core.close();
  });
});
