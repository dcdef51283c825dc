// The client over https://: a private CA given through the `tls` option is trusted, and without it the core's
// self-signed certificate is refused at once (not retried) with the typed unreachable error.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoreClient, CoreUnreachableError, type RetryInfo } from '../../src/core-client/index.js';

let dir: string;
let server: https.Server;
let url: string;
let cert: Buffer;
let seen = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-tls-'));
  const [keyFile, certFile] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=localhost'],
    { stdio: 'ignore' },
  );
  cert = readFileSync(certFile);
  server = https.createServer({ key: readFileSync(keyFile), cert }, (req, res) => {
    seen++;
    req.resume();
    req.on('end', () => res.end('Hello\n'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://localhost:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('https cores', () => {
  it('trusts a private CA given in tls.ca', async () => {
    const client = createCoreClient({ url, tls: { ca: cert } });
    try {
      expect(await client.hello()).toBe('Hello');
    } finally {
      client.close();
    }
  });

  it('refuses an untrusted certificate at once, with the typed error', async () => {
    const retries: RetryInfo[] = [];
    const before = seen;
    const client = createCoreClient({ url, retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 2 }, onRetry: (r) => retries.push(r) });
    try {
      const err = await client.hello().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CoreUnreachableError);
      expect((err as CoreUnreachableError).attempts).toBe(1);
      expect((err as Error).message).toMatch(/SELF_SIGNED|self-signed|certificate/i);
      // Said as what it is, with the way to trust it (issue 23), not as a core that is not running.
      expect((err as Error).message).toContain('presented a certificate this machine does not trust');
      expect((err as Error).message).toContain('--ca FILE (PEM) or NODE_EXTRA_CA_CERTS=FILE');
      expect((err as Error).message).not.toContain('Check that the core is running');
      expect(retries).toEqual([]);
      expect(seen).toBe(before);
    } finally {
      client.close();
    }
  });
});
