// Building request paths: base path of the URL, then the app and tenant prefix (§1.5), then the API path.
import { UserError } from '../errors.js';
import type { ApiScope } from './types.js';

export interface BaseUrl {
  protocol: 'http:' | 'https:';
  hostname: string;
  port: number;
  /** '' or '/some/base' without trailing slash. */
  basePath: string;
  /** The URL as shown in messages (no credentials, no trailing slash). */
  display: string;
}

export function parseBaseUrl(url: string): BaseUrl {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new UserError(`core URL "${url}" is not a URL: give it as http://host:port[/base-path]`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new UserError(`core URL "${url}" must start with http:// or https://`);
  }
  if (u.search || u.hash) throw new UserError(`core URL "${url}" must not carry a query or fragment`);
  const basePath = u.pathname.replace(/\/+$/, '');
  const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
  // URL.hostname keeps IPv6 brackets; node:http wants them off.
  const hostname = u.hostname.replace(/^\[(.*)\]$/, '$1');
  return { protocol: u.protocol, hostname, port, basePath, display: `${u.protocol}//${u.host}${basePath}` };
}

/** Words the reference core refuses as a tenant id (webserver/Utils.INVALID_WORDS_FOR_TENANTID). */
const RESERVED_TENANT_IDS = new Set(['recipe', 'config', 'users', 'hello']);

export function normaliseTenantId(tenantId: string | undefined): string {
  const t = (tenantId ?? 'public').trim().toLowerCase();
  if (!/^[a-z0-9-]+$/.test(t) || RESERVED_TENANT_IDS.has(t)) {
    throw new UserError(
      `tenant "${tenantId}" is not a valid tenant id: use lower-case letters, digits and '-', and not recipe/config/users/hello`,
    );
  }
  return t;
}

export function normaliseAppId(appId: string | undefined): string {
  const a = (appId ?? 'public').trim().toLowerCase();
  if (!/^[a-z0-9-]+$/.test(a)) {
    throw new UserError(`app "${appId}" is not a valid app id: use lower-case letters, digits and '-'`);
  }
  return a;
}

/** `[/appid-<app>][/<tenant>]` for the scope; `public` is the default and left out (equivalent at the core). */
export function prefixFor(scope: ApiScope, appId: string, tenantId: string): string {
  if (scope === 'none') return '';
  const app = appId === 'public' ? '' : `/appid-${appId}`;
  const tenant = scope === 'tenant' && tenantId !== 'public' ? `/${tenantId}` : '';
  return app + tenant;
}

export function queryString(query: Record<string, string | number | undefined> | undefined): string {
  if (!query) return '';
  let out = '';
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    out += `${out ? '&' : '?'}${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`;
  }
  return out;
}
