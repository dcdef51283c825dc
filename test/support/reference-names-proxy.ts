// A loopback proxy that makes the sandbox answer as the reference core (11.4 line) does to the mission's scrypt
// name: `hashingAlgorithm: "external_scrypt"` gets HTTP 400 "Unsupported password hashing algorithm" (the reference
// knows only ARGON2, BCRYPT and FIREBASE_SCRYPT, trimmed and upper-cased: ImportUserWithPasswordHashAPI). Everything
// else is forwarded untouched. Counts what it refused.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReferenceNamesProxy {
  url: string;
  /** Requests refused with the reference's 400. */
  refused: number;
  stop(): Promise<void>;
}

export async function startReferenceNamesProxy(target: string): Promise<ReferenceNamesProxy> {
  const base = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  const state = { refused: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'POST' && /\/recipe\/user\/passwordhash\/import$/.test((req.url ?? '').split('?')[0]!)) {
        let name: unknown;
        try {
          name = (JSON.parse(body.toString('utf8')) as { hashingAlgorithm?: unknown }).hashingAlgorithm;
        } catch {
          name = undefined;
        }
        if (
          typeof name === 'string' &&
          !['ARGON2', 'BCRYPT', 'FIREBASE_SCRYPT'].includes(name.trim().toUpperCase()) &&
          name.trim() !== ''
        ) {
          state.refused += 1;
          const text = 'Unsupported password hashing algorithm\n';
          res.writeHead(400, { 'Content-Type': 'text/html; charset=UTF-8', 'Content-Length': Buffer.byteLength(text) });
          res.end(text);
          return;
        }
      }
      const upstream = http.request(
        { hostname: base.hostname, port: base.port, method: req.method, path: req.url, headers: req.headers, agent },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      upstream.on('error', () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    get refused() {
      return state.refused;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
