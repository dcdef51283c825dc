// Helpers for the sandbox tests: a tiny HTTP client that keeps status, content type and raw text, and the one
// set-up of a test file that speaks to one sandbox (sandboxForFile).
import { afterAll, beforeAll } from 'vitest';
import { startSandbox, type RunningSandbox, type StartSandboxOptions } from '../../src/sandbox/spawn.js';

export interface Answer {
  status: number;
  type: string;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

export const LICENSE = 'sandbox-test-licence-key';
export const JSON_TYPE = 'application/json; charset=UTF-8';
export const TEXT_TYPE = 'text/html; charset=UTF-8';

export async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const res = await fetch(base + path, init);
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  let json: unknown;
  if (type.startsWith('application/json')) json = JSON.parse(text);
  return { status: res.status, type, text, json };
}

/** A client bound to one sandbox. */
export function client(sb: { url: string }, defaults: Record<string, string> = {}) {
  return {
    get: (path: string, headers: Record<string, string> = {}) => call(sb.url, 'GET', path, undefined, { ...defaults, ...headers }),
    post: (path: string, body: unknown, headers: Record<string, string> = {}) =>
      call(sb.url, 'POST', path, body, { ...defaults, ...headers }),
    put: (path: string, body: unknown, headers: Record<string, string> = {}) =>
      call(sb.url, 'PUT', path, body, { ...defaults, ...headers }),
    del: (path: string, body?: unknown, headers: Record<string, string> = {}) =>
      call(sb.url, 'DELETE', path, body, { ...defaults, ...headers }),
  };
}

/** Start a sandbox with the test hooks on (clock control) and fast bcrypt for sign-ups. */
export function startTestSandbox(opts: StartSandboxOptions = {}): Promise<RunningSandbox> {
  return startSandbox({
    ...opts,
    env: { AUTH_MIGRATE_SANDBOX_TEST_HOOKS: '1', AUTH_MIGRATE_SANDBOX_BCRYPT_ROUNDS: '4', ...opts.env },
  });
}

/**
 * One sandbox for a whole test file (the conformance set-up): started before its tests, stopped after them. `sb` is
 * filled in when it has started; `api` speaks to it with the given default headers (e.g. a cdi-version).
 */
export function sandboxForFile(opts: StartSandboxOptions = {}, headers: Record<string, string> = {}) {
  const sb = {} as RunningSandbox;
  beforeAll(async () => {
    Object.assign(sb, await startTestSandbox(opts));
  });
  afterAll(async () => {
    await sb.stop?.();
  });
  return { sb, api: client(sb, headers) };
}

/** Move the sandbox's clock forward (test hook). */
export async function advanceClock(sb: { url: string }, ms: number, headers: Record<string, string> = {}): Promise<void> {
  const a = await call(sb.url, 'POST', '/sandbox-test/clock', { advanceMs: ms }, headers);
  if (a.status !== 200) throw new Error(`clock hook failed: ${a.status} ${a.text}`);
}

/** The text body the reference core sends for an error. */
export const errorText = (message: string): string => `${message}\n`;

/** The public bcrypt vector of shared/formats.md: password `U*U`. */
export const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
