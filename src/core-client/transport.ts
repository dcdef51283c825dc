// One HTTP attempt over an undici Pool (one per origin, keep-alive) with a whole-attempt timeout.
// undici's dispatch API is used instead of node:http because it costs about 0.7x the client CPU per request
// on loopback (docs/benchmarks.md, "Core client"): the `run` process, not the core, was the bottleneck.
// Transport failures are normalised to the codes node:http gave (ECONNRESET for a dropped connection), so the
// retry rules, the reasons shown to users and the typed errors stay as they were.
import type { IncomingHttpHeaders } from 'node:http';
import type { ConnectionOptions } from 'node:tls';
import { Pool, type Dispatcher } from 'undici';
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
  headers: IncomingHttpHeaders;
  text: string;
}

/** TLS settings for https:// cores (a private CA, a client certificate...); Node's defaults otherwise. */
export type TlsOptions = Pick<ConnectionOptions, 'ca' | 'cert' | 'key' | 'passphrase' | 'pfx' | 'rejectUnauthorized' | 'servername'>;

/** A timeout, carried as a network-style error so the retry logic treats it like one. */
export class AttemptTimeoutError extends Error {
  readonly code = 'ERR_CORE_TIMEOUT';
  constructor(ms: number) {
    super(`timeout after ${ms} ms`);
  }
}

/** The connection pool of one origin: at most `connections` sockets, kept alive between requests. */
export function createPool(base: BaseUrl, connections: number, connectTimeoutMs: number, tls?: TlsOptions): Dispatcher {
  const host = base.hostname.includes(':') ? `[${base.hostname}]` : base.hostname;
  return new Pool(`${base.protocol}//${host}:${base.port}`, {
    connections,
    pipelining: 1,
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 60_000,
    // The whole-attempt timer below covers waiting for headers and body; undici's own would only duplicate it.
    headersTimeout: 0,
    bodyTimeout: 0,
    connectTimeout: connectTimeoutMs,
    connect: tls ? { ...tls } : undefined,
  });
}

export function sendAttempt(pool: Dispatcher, attempt: Attempt): Promise<AttemptResult> {
  return new Promise<AttemptResult>((resolve, reject) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    let status = 0;
    let headers: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    function fail(err: Error): void {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      reject(normalise(err));
    }
    const handler: Dispatcher.DispatchHandler = {
      // Called when the request gets a connected socket: time spent queued in the pool (more requests in flight
      // than connections) does not count; sending and the whole answer do (connecting has its own timeout).
      onRequestStart(controller) {
        if (settled) return;
        timer = setTimeout(() => {
          const err = new AttemptTimeoutError(attempt.timeoutMs);
          fail(err);
          controller.abort(err);
        }, attempt.timeoutMs);
      },
      onResponseStart(_controller, statusCode, responseHeaders) {
        status = statusCode;
        headers = responseHeaders as IncomingHttpHeaders;
      },
      onResponseData(_controller, chunk) {
        chunks.push(chunk);
      },
      onResponseEnd() {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
        resolve({ status, headers, text });
      },
      onResponseError(_controller, err) {
        fail(err);
      },
    };
    try {
      pool.dispatch(
        { method: attempt.method as Dispatcher.HttpMethod, path: attempt.path, headers: attempt.headers, body: attempt.body },
        handler,
      );
    } catch (err) {
      fail(err as Error);
    }
  });
}

/** undici's names for a dropped connection become node:http's, which the retry rules and messages know. */
function normalise(err: Error): Error {
  const code = (err as { code?: string }).code;
  if (code === 'UND_ERR_SOCKET' || code === 'UND_ERR_CLOSED') {
    return Object.assign(new Error('socket hang up', { cause: err }), { code: 'ECONNRESET' });
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return Object.assign(new Error('connect timeout', { cause: err }), { code: 'ETIMEDOUT' });
  return err;
}
