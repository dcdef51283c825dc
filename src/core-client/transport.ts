// One HTTP attempt over node:http(s) with a keep-alive agent and a whole-attempt timeout.
// Plain node:http is used (not fetch/undici) because its per-request overhead is the lowest on loopback.
import http from 'node:http';
import https from 'node:https';
import type { BaseUrl } from './paths.js';

export interface Attempt {
  method: string;
  /** Full path including base path, prefix and query. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  timeoutMs: number;
}

export interface AttemptResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** A timeout, carried as a network-style error so the retry logic treats it like one. */
export class AttemptTimeoutError extends Error {
  readonly code = 'ERR_CORE_TIMEOUT';
  constructor(ms: number) {
    super(`timeout after ${ms} ms`);
  }
}

export function createAgent(base: BaseUrl, maxSockets: number): http.Agent {
  const options = { keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: 'lifo' as const };
  return base.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
}

export function sendAttempt(base: BaseUrl, agent: http.Agent, attempt: Attempt): Promise<AttemptResult> {
  const request = base.protocol === 'https:' ? https.request : http.request;
  return new Promise<AttemptResult>((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const req = request(
      {
        protocol: base.protocol,
        hostname: base.hostname,
        port: base.port,
        method: attempt.method,
        path: attempt.path,
        headers: attempt.headers,
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if (settled) return;
          settled = true;
          if (timer) clearTimeout(timer);
          const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text });
        });
        res.on('error', fail);
        // 'aborted' covers a connection that closes mid-body on older code paths.
        res.on('aborted', () => fail(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })));
      },
    );
    function fail(err: Error): void {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      reject(err);
    }
    // The clock starts when the attempt gets a socket, so time spent queued in the agent (more requests in
    // flight than maxSockets) does not count; connecting, sending and the whole answer do.
    req.once('socket', () => {
      if (settled) return;
      timer = setTimeout(() => {
        const err = new AttemptTimeoutError(attempt.timeoutMs);
        fail(err);
        req.destroy(err);
      }, attempt.timeoutMs);
    });
    req.on('error', fail);
    if (attempt.body) req.end(attempt.body);
    else req.end();
  });
}
