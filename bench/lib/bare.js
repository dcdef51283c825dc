// Bare migration scripts, the yardstick of the real-core bench: what a hand-written script would send for the same
// end state, and nothing else (no look-up, no journal, no read-back, no report):
//   steps:  per user, `concurrency` at once: the password import (and, for a verified email, the verification
//           token and its use), or the third-party sign-in-up (verified in the same call), or the passwordless
//           code and its consumption; the external id mapping where the user has one.
//   bulk:   POST /bulk-import/import per user, `concurrency` at once.
//   staged: POST /bulk-import/users in batches of 10,000, then GET /bulk-import/users/count until nothing waits.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';

const DIST = new URL('../../dist/', import.meta.url);
const { planBulkUser } = await import(new URL('engine/strategies/bulk/plan.js', DIST));
const { detectAlgorithm } = await import(new URL('hashes/formats.js', DIST));

const ALG = { bcrypt: 'bcrypt', argon2: 'argon2', external_scrypt: 'firebase_scrypt' };

export async function readUsers(file) {
  const users = [];
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) if (line.trim()) users.push(JSON.parse(line));
  return users;
}

/** A small HTTP client of the core (undici pool): call(method, path, body, query) throws on any answer but 200; counts its requests. */
export function client(url, apiKey, connections) {
  const base = new URL(url);
  const pool = new Pool(base.origin, { connections, pipelining: 1 });
  const prefix = base.pathname.replace(/\/+$/, '');
  let requests = 0;
  const call = async (method, path, body, query) => {
    requests++;
    const headers = { 'cdi-version': '5.4', 'content-type': 'application/json' };
    if (apiKey) headers['api-key'] = apiKey;
    const qs = query ? `?${new URLSearchParams(query)}` : '';
    const r = await pool.request({
      method,
      path: prefix + path + qs,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.body.text();
    if (r.statusCode !== 200) throw new Error(`${method} ${path}: HTTP ${r.statusCode} ${text.slice(0, 200)}`);
    return JSON.parse(text);
  };
  return {
    call,
    close: () => pool.close(),
    get requests() {
      return requests;
    },
  };
}

/** Run `fn` over `items`, `concurrency` at a time. */
export async function pooled(items, concurrency, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

async function stepsUser(c, u) {
  let userId;
  if (u.password) {
    const r = await c.call('POST', '/recipe/user/passwordhash/import', {
      email: u.email,
      passwordHash: u.password.hash,
      hashingAlgorithm: ALG[u.password.algorithm ?? detectAlgorithm(u.password.hash)],
    });
    userId = r.user.id;
    if (u.emailVerified) {
      const t = await c.call('POST', '/recipe/user/email/verify/token', { userId, email: u.email });
      if (t.status === 'OK') await c.call('POST', '/recipe/user/email/verify', { method: 'token', token: t.token });
    }
  } else if (u.thirdParty?.length) {
    const tp = u.thirdParty[0];
    const r = await c.call('POST', '/recipe/signinup', {
      thirdPartyId: tp.providerId,
      thirdPartyUserId: tp.userId,
      email: { id: tp.email ?? u.email, isVerified: tp.emailVerified ?? u.emailVerified ?? false },
    });
    userId = r.user.id;
  } else if (u.phoneNumber) {
    const code = await c.call('POST', '/recipe/signinup/code', { phoneNumber: u.phoneNumber });
    const r = await c.call('POST', '/recipe/signinup/code/consume', {
      preAuthSessionId: code.preAuthSessionId,
      deviceId: code.deviceId,
      userInputCode: code.userInputCode,
    });
    userId = r.user.id;
  }
  if (u.externalUserId && userId)
    await c.call('POST', '/recipe/userid/map', { superTokensUserId: userId, externalUserId: u.externalUserId });
}

/**
 * Run one bare script over `users`; returns {wallMs, requests, usersPerS}. `onUploaded` (staged): told once every
 * batch is stored, before the first look at the job.
 */
export async function runBare(kind, { url, apiKey, users, concurrency = 16, pollMs = 250, onUploaded }) {
  const c = client(url, apiKey, Math.max(concurrency, 1));
  const started = performance.now();
  try {
    if (kind === 'steps') await pooled(users, concurrency, (u) => stepsUser(c, u));
    else if (kind === 'bulk') await pooled(users, concurrency, (u) => c.call('POST', '/bulk-import/import', planBulkUser(u)));
    else if (kind === 'staged') {
      for (let i = 0; i < users.length; i += 10_000) {
        await c.call('POST', '/bulk-import/users', { users: users.slice(i, i + 10_000).map((u) => planBulkUser(u)) });
      }
      onUploaded?.();
      for (;;) {
        const [n, p] = await Promise.all([
          c.call('GET', '/bulk-import/users/count', undefined, { status: 'NEW' }),
          c.call('GET', '/bulk-import/users/count', undefined, { status: 'PROCESSING' }),
        ]);
        if (n.count + p.count === 0) break;
        await new Promise((r) => setTimeout(r, pollMs));
      }
    } else throw new Error(`unknown bare script ${kind}`);
    const wallMs = performance.now() - started;
    return { wallMs, requests: c.requests, usersPerS: (users.length * 1000) / wallMs };
  } finally {
    await c.close();
  }
}
