// A loopback HTTP proxy for tests: forwards every request to the core, except the writes a test picks, which it
// answers `{"status":"OK"}` without forwarding (a misbehaving proxy in front of a core: an OK that applied
// nothing). Counts what it swallowed; `setSwallow(false)` lets everything through from then on.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BareOkProxy {
  url: string;
  /** `METHOD /path` of every request answered bare OK, in order. */
  swallowed: string[];
  setSwallow(on: boolean): void;
  stop(): Promise<void>;
}

export async function startBareOkProxy(target: string, swallow: (method: string, path: string) => boolean): Promise<BareOkProxy> {
  const to = new URL(target);
  const swallowed: string[] = [];
  let on = true;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      if (on && swallow(req.method ?? 'GET', path)) {
        swallowed.push(`${req.method} ${path}`);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"OK"}');
        return;
      }
      const headers = { ...req.headers, host: to.host };
      const fwd = http.request({ hostname: to.hostname, port: to.port, method: req.method, path: req.url, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      fwd.on('error', () => res.writeHead(502).end());
      fwd.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    swallowed,
    setSwallow: (v) => void (on = v),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
