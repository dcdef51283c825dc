// The request pipeline shared by every method: headers, prefix, attempts with retries, and mapping of
// non-200 answers to typed errors. Business statuses (HTTP 200) are returned, never thrown.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CoreAuthError,
  CoreClientError,
  CoreConfigError,
  CoreHttpError,
  CoreLicenseError,
  CoreProtocolError,
  CoreUnreachableError,
  isSignerKeyMissing,
} from './errors.js';
import { prefixFor, queryString, type BaseUrl } from './paths.js';
import { backoffDelay, isRetryableStatus, isTransientNetworkError, networkReason, parseRetryAfter } from './retry.js';
import type { Dispatcher } from 'undici';
import { noteUnclearAttempt, type LostWrites } from './lost-writes.js';
import { sendAttempt } from './transport.js';
import type { AttemptAnswer, RawRequest, RawResponse, RetryInfo, RetryPolicy } from './types.js';

/** Everything a request needs that does not change per call (shared between tenants of one client). */
export interface RequestContext {
  base: BaseUrl;
  /** The origin's connection pool (undici). */
  pool: Dispatcher;
  apiKey?: string;
  appId: string;
  cdiVersion: string;
  timeoutMs: number;
  retry: RetryPolicy;
  maxRetryAfterMs: number;
  onRetry?: (info: RetryInfo) => void;
  /** Told of every attempt's outcome (CoreClient.observe); shared by the clients made from one context. */
  observers?: Set<(answer: AttemptAnswer) => void>;
  random: () => number;
  /** The tally of the piece of work this client's requests belong to (CoreClient.countingLost). */
  lost?: LostWrites;
}

function tell(ctx: RequestContext, answer: AttemptAnswer): void {
  if (ctx.observers) for (const listener of ctx.observers) listener(answer);
}

/** Statuses that, when they persist past every retry, mean the core is unavailable rather than the call bad. */
const UNAVAILABLE = new Set([429, 502, 503, 504]);

export async function sendRequest(ctx: RequestContext, tenantId: string, req: RawRequest): Promise<RawResponse> {
  const path = ctx.base.basePath + prefixFor(req.scope, ctx.appId, tenantId) + req.path + queryString(req.query);
  const headers: Record<string, string> = { 'cdi-version': ctx.cdiVersion };
  if (ctx.apiKey) headers['api-key'] = ctx.apiKey;
  if (req.rid) headers['rid'] = req.rid;
  let body: Buffer | undefined;
  if (req.body !== undefined) {
    body = Buffer.from(JSON.stringify(req.body), 'utf8');
    headers['content-type'] = 'application/json; charset=utf-8';
    headers['content-length'] = String(body.length);
  }
  const { method } = req;
  const maxAttempts = ctx.retry.retries + 1;

  for (let attempt = 1; ; attempt++) {
    let reason: string;
    let minDelay = 0;
    const sent = performance.now();
    try {
      const res = await sendAttempt(ctx.pool, { method, path, headers, body, timeoutMs: ctx.timeoutMs });
      const status = res.status;
      tell(ctx, { trouble: isRetryableStatus(status), status, ms: performance.now() - sent });
      if (status >= 200 && status < 300) {
        return { status, contentType: String(res.headers['content-type'] ?? ''), text: res.text };
      }
      const text = scrub(res.text.trim(), ctx.apiKey);
      if (status === 401) throw new CoreAuthError(method, path, ctx.base.display, Boolean(ctx.apiKey));
      if (status === 402) throw new CoreLicenseError(text, method, path, ctx.base.display);
      if (isSignerKeyMissing(status, text)) throw new CoreConfigError(text, method, path, ctx.base.display);
      if (!isRetryableStatus(status)) throw new CoreHttpError(status, text, method, path);
      noteUnclearAttempt(ctx.lost, method, { status });
      const retryAfter = parseRetryAfter(res.headers['retry-after']);
      reason = `HTTP ${status}`;
      if (retryAfter !== undefined) {
        minDelay = Math.min(retryAfter, ctx.maxRetryAfterMs);
        reason += ` (Retry-After ${res.headers['retry-after']})`;
      }
      if (attempt >= maxAttempts) {
        if (UNAVAILABLE.has(status)) throw new CoreUnreachableError(ctx.base.display, method, path, attempt, reason);
        throw new CoreHttpError(status, text, method, path, false);
      }
    } catch (err) {
      // Our own typed errors were decided above; only transport failures go on.
      if (err instanceof CoreClientError) throw err;
      tell(ctx, { trouble: isTransientNetworkError(err), ms: performance.now() - sent });
      noteUnclearAttempt(ctx.lost, method, { error: err });
      const why = networkReason(err);
      if (!isTransientNetworkError(err) || attempt >= maxAttempts) {
        throw new CoreUnreachableError(ctx.base.display, method, path, attempt, why);
      }
      reason = why;
    }
    const delayMs = Math.max(minDelay, backoffDelay(ctx.retry, attempt, ctx.random));
    ctx.onRetry?.({ method, path, attempt, delayMs, reason });
    if (delayMs > 0) await sleep(delayMs);
  }
}

/** Reads that meet a 200 that is not JSON are asked again this many times (a mangled answer, not a wrong URL). */
const GARBLED_READ_RETRIES = 3;

/**
 * A 200 JSON answer with a string `status` (or, for /apiversion, any JSON object). A read (GET) answered with
 * something that is not JSON is asked again like a 5xx; a write is not (the step's exactly-once rule decides).
 */
export async function sendJson<T>(ctx: RequestContext, tenantId: string, req: RawRequest, needsStatus = true): Promise<T> {
  let res = await sendRequest(ctx, tenantId, req);
  let parsed = parseOrNotJson(res.text);
  for (let retry = 0; parsed === NOT_JSON && req.method === 'GET' && retry < GARBLED_READ_RETRIES; retry++) {
    const delayMs = backoffDelay(ctx.retry, retry + 1, ctx.random);
    ctx.onRetry?.({ method: req.method, path: req.path, attempt: retry + 1, delayMs, reason: 'a 200 that is not JSON' });
    if (delayMs > 0) await sleep(delayMs);
    res = await sendRequest(ctx, tenantId, req);
    parsed = parseOrNotJson(res.text);
  }
  if (parsed === NOT_JSON) {
    throw new CoreProtocolError(
      req.method,
      req.path,
      `HTTP ${res.status} with a body that is not JSON (${res.contentType || 'no content-type'})`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new CoreProtocolError(req.method, req.path, 'a JSON value that is not an object');
  }
  if (needsStatus && typeof (parsed as { status?: unknown }).status !== 'string') {
    throw new CoreProtocolError(req.method, req.path, 'a JSON object without a "status" field');
  }
  return parsed as T;
}

/** Belt and braces: a core should never echo the key, but if it did, it must not reach a message. */
function scrub(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join('***') : text;
}

const NOT_JSON = Symbol('not JSON');

function parseOrNotJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}
