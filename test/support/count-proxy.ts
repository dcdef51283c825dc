// A loopback HTTP proxy that counts the requests passing through it by method and path (no fault, no delay):
// tests point a command at it to prove how many requests, and how many writes, it sent to the core, and how many
// of one kind were under way at once.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CountProxy {
  url: string;
  /** `GET /user/id` -> 12, ... (paths without their query). */
  readonly counts: Map<string, number>;
  /** The most requests of a method and path under way at once (until answered). */
  readonly maxInFlight: Map<string, number>;
  /** Every request so far. */
  total(): number;
  /** Requests other than GET (writes). */
  writes(): number;
  reset(): void;
  close(): Promise<void>;
}

export async function startCountProxy(target: string): Promise<CountProxy> {
  const base = new URL(target);
  const counts = new Map<string, number>();
  const inFlight = new Map<string, number>();
  const maxInFlight = new Map<string, number>();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 128 });
  const server = http.createServer((req, res) => {
    const key = `${req.method} ${(req.url ?? '/').split('?')[0]}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    const now = (inFlight.get(key) ?? 0) + 1;
    inFlight.set(key, now);
    maxInFlight.set(key, Math.max(now, maxInFlight.get(key) ?? 0));
    res.on('close', () => inFlight.set(key, (inFlight.get(key) ?? 1) - 1));
    const upstream = http.request(
      { host: base.hostname, port: base.port, method: req.method, path: req.url, headers: req.headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const sum = (pred: (k: string) => boolean): number => [...counts].filter(([k]) => pred(k)).reduce((n, [, v]) => n + v, 0);
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    maxInFlight,
    total: () => sum(() => true),
    writes: () => sum((k) => !k.startsWith('GET ')),
    reset: () => {
      counts.clear();
      maxInFlight.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
