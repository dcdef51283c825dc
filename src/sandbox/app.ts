// The sandbox core's HTTP app on node:http: the reference core's order of checks (API key, cdi-version,
// tenant, method), the `[/appid-<app>][/<tenant>]` prefix, and the rule that nothing is answered before
// the writes it depends on are durable.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { CDI_VERSIONS, LATEST_CDI, type SandboxConfig } from './config.js';
import { compareVersions, lazyBody, type Ctx, type Method, type Route } from './context.js';
import { HttpError, type Reply } from './http.js';
import { ROUTES } from './routes/index.js';
import type { Store } from './store/index.js';
import { assertTenantExists } from './tenants.js';
import { FAULT_BODY, type FaultDecision, type FaultInjector } from './faults.js';

export const MAX_BODY_BYTES = 1 << 20;
const INVALID_TENANT_WORDS = new Set(['recipe', 'config', 'users', 'hello']);
const PREFIX = /^\/appid-([a-z0-9-]*)(\/.*)?$/;
const TENANT = /^\/([a-z0-9-]+)(\/.*)?$/;

interface Match {
  route: Route;
  app: string;
  tenant: string;
}

export function matchPath(routes: Map<string, Route>, rawPath: string): Match | undefined {
  let path = rawPath.toLowerCase();
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  let app = 'public';
  const p = PREFIX.exec(path);
  if (p) {
    app = p[1] || 'public';
    path = p[2] ?? '/';
  }
  const direct = routes.get(path);
  if (direct) return { route: direct, app, tenant: 'public' };
  const t = TENANT.exec(path);
  // `/<tenant>` alone is not `/`: only `/` itself says Hello; anything else unknown is 404.
  if (t && t[2] && !INVALID_TENANT_WORDS.has(t[1]!) && !t[1]!.startsWith('appid-')) {
    const route = routes.get(t[2]);
    if (route) return { route, app, tenant: t[1]! };
  }
  return undefined;
}

function apiKeyOf(req: IncomingMessage): string | undefined {
  const header = req.headers['api-key'];
  if (typeof header === 'string') return header.trim();
  const auth = req.headers.authorization;
  if (typeof auth !== 'string') return undefined;
  const t = auth.trim();
  return /^bearer /i.test(t) ? t.slice(7).trim() : t;
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/**
 * Constant-time: every configured key is compared through equal-length digests. A key once accepted is
 * remembered (a few at most), so the SHA-256 (5% of the sandbox's CPU on imports) is not paid on every request:
 * a Set lookup compares seeded hashes before contents, so a wrong key learns nothing from its timing.
 */
function createKeyCheck(keys: Buffer[]): (given: string | undefined) => boolean {
  const accepted = new Set<string>();
  return (given) => {
    if (given === undefined) return false;
    if (accepted.has(given)) return true;
    const d = digest(given);
    let ok = false;
    for (const k of keys) ok = timingSafeEqual(d, k) || ok;
    if (ok && accepted.size < 16) accepted.add(given);
    return ok;
  };
}

function cdiOf(req: IncomingMessage): string {
  const v = req.headers['cdi-version'];
  if (v === undefined) return LATEST_CDI;
  const s = (Array.isArray(v) ? v[0]! : v).trim();
  if (!/^[0-9]+(\.[0-9]+)*$/.test(s)) throw new HttpError(400, 'cdi-version header is invalid');
  return s;
}

function send(res: ServerResponse, reply: Reply): void {
  const body = reply.kind === 'json' ? JSON.stringify(reply.body) + '\n' : reply.body + '\n';
  res.writeHead(reply.status, {
    'Content-Type': reply.kind === 'json' ? 'application/json; charset=UTF-8' : 'text/html; charset=UTF-8',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

function readBody(req: IncomingMessage, limit: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (c: Buffer) => {
      if (tooBig) return;
      size += c.length;
      if (size > limit) {
        tooBig = true;
        chunks.length = 0;
        resolve(null);
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!tooBig) resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', reject);
  });
}

export interface SandboxApp {
  listener: RequestListener;
  /** Resolves when every request being handled has been answered. */
  idle(): Promise<void>;
}

/** The last answers (200, JSON) to writes per method and path, for the `replay` fault mode. */
function createReplayBook() {
  const KEEP = 16;
  const book = new Map<string, Reply[]>();
  /** Answers that are not their request's own (replayed or bare): never kept. */
  const foreign = new WeakSet<Reply>();
  const notOwn = (reply: Reply): Reply => {
    foreign.add(reply);
    return reply;
  };
  return {
    notOwn,
    keep(method: string, path: string, reply: Reply): void {
      if (reply.status !== 200 || reply.kind !== 'json' || foreign.has(reply)) return;
      const key = `${method} ${path}`;
      const list = book.get(key) ?? book.set(key, []).get(key)!;
      list.push({ kind: 'json', status: 200, body: reply.body });
      if (list.length > KEEP) list.shift();
    },
    /** One of the earlier answers of this path; undefined when there was none (the request is then answered as usual). */
    pick(method: string, path: string, r: number): Reply | undefined {
      const list = book.get(`${method} ${path}`);
      const earlier = list?.[Math.floor(r * list.length)];
      return earlier ? notOwn({ ...earlier }) : undefined;
    },
  };
}

export interface AppHooks {
  /** The store could not be written (a full disk, a size limit, a folder made read-only): the request answers 500. */
  onStoreError?: (err: unknown) => void;
}

/** What one request is answered with: the store, the configuration and the keys, fixed when the app is made. */
interface AppEnv {
  store: Store;
  config: SandboxConfig;
  keys: Buffer[];
  keyAccepted: (given: string | undefined) => boolean;
  supported: Set<string>;
  faults: FaultInjector | undefined;
  replays: ReturnType<typeof createReplayBook>;
}

export function createApp(store: Store, config: SandboxConfig, faults?: FaultInjector, hooks: AppHooks = {}): SandboxApp {
  const keys = config.apiKeys.map(digest);
  const env: AppEnv = {
    store,
    config,
    keys,
    keyAccepted: createKeyCheck(keys),
    supported: new Set(CDI_VERSIONS),
    faults,
    replays: createReplayBook(),
  };
  const routes = new Map(ROUTES.map((r) => [r.path, r]));
  let inFlight = 0;
  let idleWaiters: Array<() => void> = [];

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    // Split by hand: the path is matched raw (like getRequestURI), and `//x` must not become a host.
    const pathname = q < 0 ? rawUrl : rawUrl.slice(0, q);
    const match = matchPath(routes, pathname);
    const raw = await readBody(req, match?.route.maxBodyBytes ?? MAX_BODY_BYTES);
    if (raw === null) {
      res.setHeader('Connection', 'close');
      return send(res, { kind: 'text', status: 413, body: 'Request body too large' });
    }
    // Fault modes (off unless configured, see faults.ts): 500 before applying, after applying, part-way, or a
    // lookup that fails. Decided on the matched route, so an app or tenant prefix changes nothing.
    const fault = (match && faults?.decide(req.method ?? 'GET', match.route.path)) || 'none';
    let reply: Reply;
    try {
      reply = await dispatch(env, req, match, q < 0 ? '' : rawUrl.slice(q + 1), raw, fault);
    } catch (err) {
      reply =
        err instanceof HttpError
          ? { kind: 'text', status: err.status, body: err.message }
          : { kind: 'text', status: 500, body: `java.lang.RuntimeException: ${(err as Error).message}` };
    }
    // Whatever this answer saw must be durable before it is sent: its own commit when it made one (built
    // right after applying it), otherwise everything applied so far.
    try {
      await (reply.durable ?? store.settled());
    } catch (err) {
      reply = { kind: 'text', status: 500, body: `java.io.IOException: ${(err as Error).message}` };
      hooks.onStoreError?.(err);
    }
    if (fault === 'after' && reply.status === 200) reply = { kind: 'text', status: 500, body: FAULT_BODY };
    // A write answered as it was (200, applied) is one a later `replay` may answer with.
    if (faults && req.method !== 'GET' && match) env.replays.keep(req.method ?? '', match.route.path, reply);
    send(res, reply);
  }

  return {
    listener(req, res) {
      inFlight++;
      handle(req, res)
        .catch(() => {
          if (!res.headersSent) send(res, { kind: 'text', status: 500, body: 'java.lang.RuntimeException: internal error' });
          else res.destroy();
        })
        .finally(() => {
          if (--inFlight === 0) {
            const w = idleWaiters;
            idleWaiters = [];
            for (const f of w) f();
          }
        });
    },
    idle() {
      return inFlight === 0 ? Promise.resolve() : new Promise((r) => idleWaiters.push(r));
    },
  };
}

/** One matched request through the reference core's checks (key, version, tenant, method), then its handler. */
async function dispatch(
  env: AppEnv,
  req: IncomingMessage,
  match: Match | undefined,
  search: string,
  raw: string,
  fault: FaultDecision,
): Promise<Reply> {
  if (!match) throw new HttpError(404, 'Not found');
  const { store, config, replays } = env;
  const { route, app, tenant } = match;
  const ctx: Ctx = {
    method: req.method ?? 'GET',
    app,
    tenant,
    cdi: LATEST_CDI,
    query: new URLSearchParams(search),
    headers: req.headers,
    body: lazyBody(raw),
    store,
    state: store.state,
    config,
    now: config.now(),
    fault: fault === 'partial' || fault === 'unverified' ? fault : undefined,
  };
  // The API key is checked against the app's config: an unknown app skips it and meets the 400 below.
  const knownApp = app === 'public' || store.state.maps.tenants.has(`${app}\u0000public`);
  if (route.apiKey !== false && env.keys.length > 0 && knownApp && !env.keyAccepted(apiKeyOf(req))) {
    throw new HttpError(401, 'Invalid API key');
  }
  if (route.versioned !== false) {
    ctx.cdi = cdiOf(req);
    if (compareVersions(ctx.cdi, '3.0') < 0 && tenant !== 'public') throw new HttpError(404, 'Not found');
    if (!env.supported.has(ctx.cdi)) throw new HttpError(400, `cdi-version ${ctx.cdi} not supported`);
  }
  const handler = route.methods[ctx.method as Method];
  if (!handler) throw new HttpError(405, 'Method not supported');
  if (route.apiKey !== false) assertTenantExists(ctx);
  if (route.scope === 'app' && tenant !== 'public' && compareVersions(ctx.cdi, '5.0') >= 0) {
    throw new HttpError(403, 'Only public tenantId can call this app specific API');
  }
  // The storage fails once the request has passed the checks that need none (key, version, tenant, method).
  if (fault === 'before' || fault === 'read') throw new HttpError(500, FAULT_BODY);
  // A proxy's misbehaviour (faults.ts): an answer that is not this request's, and nothing applied.
  if (fault === 'bareok') return replays.notOwn({ kind: 'json', status: 200, body: { status: 'OK' } });
  const replayed = fault === 'replay' ? replays.pick(ctx.method, route.path, env.faults!.random()) : undefined;
  if (replayed) return replayed;
  return handler(ctx);
}
