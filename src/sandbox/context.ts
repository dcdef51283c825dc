// What a route handler gets: the request (app, tenant, cdi-version, body, query) and the store/config.
import type { IncomingHttpHeaders } from 'node:http';
import type { SandboxConfig } from './config.js';
import { parseJsonObject, type Reply } from './http.js';
import type { Change, Store, StoreState } from './store/index.js';

export interface Ctx {
  method: string;
  app: string;
  tenant: string;
  /** cdi-version of the request (the latest when absent). */
  cdi: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The body as a JSON object (400 `Invalid Json Input` otherwise); parsed on first use. */
  body(): Record<string, unknown>;
  store: Store;
  state: StoreState;
  config: SandboxConfig;
  /** The clock, read once per request. */
  now: number;
  /**
   * Fault modes `partial` and `unverified` (faults.ts): the operation applies only its first transaction(s), as the
   * reference core does when a later one fails, then answers 500. An operation the mode does not apply to (no
   * second transaction on this call) answers normally.
   */
  fault?: 'partial' | 'unverified';
}

export type Handler = (ctx: Ctx) => Reply | Promise<Reply>;
export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface Route {
  path: string;
  /** 'app': app-specific (public tenant only on CDI >= 5.0); 'tenant': uses the tenant in the path. */
  scope: 'app' | 'tenant';
  /** false for /hello and /apiversion, which need no cdi-version. */
  versioned?: boolean;
  /** false for /hello (no API key). */
  apiKey?: boolean;
  /** Largest body this route takes (default MAX_BODY_BYTES, 1 MiB). */
  maxBodyBytes?: number;
  methods: Partial<Record<Method, Handler>>;
}

/** Results of compareVersions: a handful of versions meet on every request, so each pair is parsed once. */
const compared = new Map<string, Map<string, number>>();

/** Compare dotted versions numerically. */
export function compareVersions(a: string, b: string): number {
  let byB = compared.get(a);
  const known = byB?.get(b);
  if (known !== undefined) return known;
  const d = compareParsed(a, b);
  // Bounded: cdi-version headers are checked against the supported list, but a client may send any of them.
  if (compared.size < 256) {
    if (!byB) compared.set(a, (byB = new Map()));
    byB.set(b, d);
  }
  return d;
}

function compareParsed(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

export const atLeast = (ctx: Ctx, version: string): boolean => compareVersions(ctx.cdi, version) >= 0;

/**
 * Apply `changes`, build the answer at once (so it shows nothing newer than these changes) and let it wait
 * for exactly this commit: groups are written in order, so everything the answer saw is durable with it.
 */
export function commitThen(ctx: Ctx, changes: Change[], build: () => Reply): Reply {
  const durable = ctx.store.commit(changes);
  const reply = build();
  reply.durable = durable;
  return reply;
}

export function lazyBody(raw: string): () => Record<string, unknown> {
  let parsed: Record<string, unknown> | undefined;
  return () => (parsed ??= parseJsonObject(raw));
}
