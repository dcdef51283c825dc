// A loopback HTTP proxy that injects faults between a client and a core, for tests and benchmarks:
// 503s, 429s with Retry-After, connections dropped before forwarding, and (the hard case) connections
// dropped AFTER the target performed and answered the request, so the client retries a step the core already
// did. Deterministic for a seed (the project's seeded generator): the n-th request gets the same decision in every run.
import http from 'node:http';
import { createRng } from '../../src/shared/rng.js';
import type { AddressInfo } from 'node:net';

export type FaultKind = '503' | '429' | 'drop' | 'reset-after-forward' | 'garbage-after-forward';

/** The default draw; `garbage-after-forward` (the target applied it, the client gets a 200 that is not JSON) only when asked. */
export const ALL_FAULTS: readonly FaultKind[] = ['503', '429', 'drop', 'reset-after-forward'];

export interface FaultProxyOptions {
  /** Target base URL, e.g. http://127.0.0.1:3567 (a path is prepended to forwarded paths). */
  target: string;
  /** Share of requests that get a fault, 0..1 (default 0). */
  faultRate?: number;
  /** Fixed delay added before each request is handled (default 0). */
  latencyMs?: number;
  /** PRNG seed (default 1). */
  seed?: number;
  /** Fault kinds drawn from, uniformly (default all). */
  faults?: FaultKind[];
  /** Exact decisions for the first requests (index = request number, null = no fault); random after. */
  sequence?: Array<FaultKind | null>;
  /** Retry-After sent with 429 (default '1', seconds; an HTTP date also works). */
  retryAfter?: string;
  /** Port to listen on (default 0 = free port). */
  port?: number;
  /** Extra delay before a request is handled (after `latencyMs`), by method and path (no query). */
  delayFor?: (method: string, path: string) => number;
  /** Only requests it returns true for may get a fault (and count in `sequence`); default every request. */
  faultOnly?: (method: string, path: string) => boolean;
}

export interface FaultProxyStats {
  /** Requests received. */
  requests: number;
  /** Requests sent on to the target. */
  forwarded: number;
  /** Answers relayed back to the client. */
  answered: number;
  /** Target unreachable: answered 502. */
  badGateway: number;
  faults: Record<FaultKind, number>;
  /** Decision per request number, in arrival order (for determinism checks). */
  decisions: Array<FaultKind | null>;
  /** Method and path of each request that got a fault after forwarding. */
  resetAfterForward: string[];
  /** `METHOD /path` (no query) of every request, in arrival order. */
  log: string[];
}

export interface FaultProxy {
  url: string;
  stats: FaultProxyStats;
  /** Changes the fault rate from now on (e.g. 0 to let a run finish cleanly). */
  setFaultRate(rate: number): void;
  stop(): Promise<void>;
}

/** The project's seeded generator (mulberry32), as a plain function for test schedules. */
export function seededRandom(seed: number): () => number {
  return createRng(seed).next;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host']);

function endToEnd(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) out[k] = v;
  return out;
}

export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const target = new URL(options.target);
  const targetBase = target.pathname.replace(/\/+$/, '');
  const random = seededRandom(options.seed ?? 1);
  const kinds = options.faults && options.faults.length ? options.faults : ALL_FAULTS;
  let faultRate = options.faultRate ?? 0;
  const latencyMs = options.latencyMs ?? 0;
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const stats: FaultProxyStats = {
    requests: 0,
    forwarded: 0,
    answered: 0,
    badGateway: 0,
    faults: { '503': 0, '429': 0, drop: 0, 'reset-after-forward': 0, 'garbage-after-forward': 0 },
    decisions: [],
    resetAfterForward: [],
    log: [],
  };
  /** Requests that may get a fault, numbered apart (so `sequence` and the seed apply to them alone). */
  let eligible = 0;

  function decide(n: number): FaultKind | null {
    // Two draws per request whatever the outcome, so decision n depends only on the seed and n.
    const hit = random();
    const pick = random();
    if (options.sequence && n < options.sequence.length) return options.sequence[n] ?? null;
    return hit < faultRate ? kinds[Math.floor(pick * kinds.length)]! : null;
  }

  const server = http.createServer((req, res) => {
    stats.requests++;
    const path = (req.url ?? '/').split('?')[0]!;
    stats.log.push(`${req.method} ${path}`);
    const mayFail = options.faultOnly ? options.faultOnly(req.method ?? 'GET', path) : true;
    const fault = mayFail ? decide(eligible++) : null;
    stats.decisions.push(fault);
    if (fault) stats.faults[fault]++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const handle = () => {
        if (fault === 'drop') return void req.socket.destroy();
        if (fault === '503') return void res.writeHead(503, { 'content-type': 'text/plain' }).end('Service Unavailable\n');
        if (fault === '429') {
          return void res
            .writeHead(429, { 'content-type': 'text/plain', 'retry-after': options.retryAfter ?? '1' })
            .end('Too Many Requests\n');
        }
        forward(req, Buffer.concat(chunks), res, fault === 'reset-after-forward', fault === 'garbage-after-forward');
      };
      const delay = latencyMs + (options.delayFor?.(req.method ?? 'GET', path) ?? 0);
      if (delay > 0) setTimeout(handle, delay);
      else handle();
    });
  });

  function forward(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse, resetAfter: boolean, garbageAfter = false): void {
    stats.forwarded++;
    const headers = endToEnd(req.headers);
    headers['content-length'] = String(body.length);
    const up = http.request(
      { hostname: target.hostname, port: target.port || 80, method: req.method, path: targetBase + (req.url ?? '/'), headers, agent },
      (upRes) => {
        const parts: Buffer[] = [];
        upRes.on('data', (c: Buffer) => parts.push(c));
        upRes.on('end', () => {
          if (resetAfter) {
            // The target has done the work and answered; the client never hears of it.
            stats.resetAfterForward.push(`${req.method} ${req.url}`);
            req.socket.destroy();
            return;
          }
          stats.answered++;
          if (garbageAfter) {
            // The target applied it; a middlebox mangled the answer into a 200 that is not JSON.
            res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>upstream answer lost</body></html>');
            return;
          }
          const out = endToEnd(upRes.headers);
          out['content-length'] = String(parts.reduce((s, p) => s + p.length, 0));
          res.writeHead(upRes.statusCode ?? 502, out).end(Buffer.concat(parts));
        });
      },
    );
    up.on('error', () => {
      stats.badGateway++;
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end('Bad Gateway\n');
    });
    up.end(body);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    setFaultRate(rate: number) {
      faultRate = rate;
    },
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      agent.destroy();
      await closed;
    },
  };
}
