// Session exchange across app instances and through the Express-style handler. Two separate processes (each with
// its own supertokens-node, as two app servers) exchange the same token at the same moment: the record in the core
// lets exactly one through. The handler sets the session on a real node:http response.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import supertokens from 'supertokens-node';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import Session from 'supertokens-node/recipe/session';
import UserRoles from 'supertokens-node/recipe/userroles';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacySessionExchangeHandler, type ExchangeOptions } from '../../packages/signin/src/session/index.js';
import type { RunningSandbox } from '../../src/sandbox/spawn.js';
import { client, startTestSandbox } from '../support/sandbox.js';
import { startTestIssuer, type TestIssuer } from '../support/signin-session/issuer.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SOURCE = join(ROOT, 'packages/signin/src/session');
const OUT = join(ROOT, '.tmp', `session-module-${process.pid}`);
const API_KEY = 'instances-test-api-key-0123456789';
let sb: RunningSandbox;
let issuer: TestIssuer;
let options: ExchangeOptions;
let app: Server;
let appUrl: string;

/** The module as plain ESM JavaScript, for processes that run without a TypeScript loader. */
async function transpileModule(): Promise<string> {
  await mkdir(OUT, { recursive: true });
  for (const file of await readdir(SOURCE)) {
    if (!file.endsWith('.ts')) continue;
    const out = ts.transpileModule(await readFile(join(SOURCE, file), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    });
    await writeFile(join(OUT, file.replace(/\.ts$/, '.js')), out.outputText);
  }
  return pathToFileURL(join(OUT, 'index.js')).href;
}

beforeAll(async () => {
  sb = await startTestSandbox({ apiKeys: [API_KEY] });
  const api = client(sb, { 'api-key': API_KEY });
  issuer = await startTestIssuer();
  supertokens.init({
    supertokens: { connectionURI: sb.url, apiKey: API_KEY },
    appInfo: { appName: 'instances-test', apiDomain: 'http://localhost:3001', websiteDomain: 'http://localhost:3000' },
    recipeList: [EmailPassword.init(), Session.init(), UserRoles.init()],
  });
  const user = await api.post('/recipe/signup', { email: 'multi@x.io', password: 'pw-123456' });
  expect((await api.post('/recipe/userid/map', { superTokensUserId: user.json.user.id, externalUserId: 'old-multi' })).json.status).toBe(
    'OK',
  );
  options = { issuers: [{ issuer: issuer.url, audience: 'my-app', jwksUri: issuer.jwksUri }] };
  const handler = legacySessionExchangeHandler(options);
  app = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  appUrl = `http://127.0.0.1:${(app.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => app?.close(resolve));
  await issuer?.close();
  await sb?.stop();
  await rm(OUT, { recursive: true, force: true });
});

function startWorker(
  moduleUrl: string,
  token: string,
): { child: ChildProcess; ready: Promise<void>; result: Promise<Record<string, unknown>> } {
  const child = spawn(process.execPath, [join(ROOT, 'test/signin-session/worker.mjs')], {
    cwd: ROOT,
    env: {
      ...process.env,
      CORE_URL: sb.url,
      CORE_API_KEY: API_KEY,
      SESSION_MODULE: moduleUrl,
      TOKEN: token,
      OPTIONS: JSON.stringify(options),
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  let readyResolve: () => void;
  const ready = new Promise<void>((r) => (readyResolve = r));
  const result = new Promise<Record<string, unknown>>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('ready\n')) readyResolve();
    });
    child.on('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line) as Record<string, unknown>);
      else reject(new Error(`worker exited ${code} without an answer: ${out}`));
    });
  });
  return { child, ready, result };
}

describe('exchange across instances', () => {
  it('lets exactly one of two processes exchange the same token at the same moment', async () => {
    const moduleUrl = await transpileModule();
    for (let round = 0; round < 2; round++) {
      const token = await issuer.rs256({ iss: issuer.url, aud: 'my-app', sub: 'old-multi' });
      const workers = [startWorker(moduleUrl, token), startWorker(moduleUrl, token)];
      await Promise.all(workers.map((w) => w.ready));
      for (const w of workers) w.child.stdin!.write('go\n');
      const results = await Promise.all(workers.map((w) => w.result));
      expect(results.map((r) => r.status).sort()).toEqual(['OK', 'REPLAYED']);
      expect(results.find((r) => r.status === 'OK')!.userId).toBe('old-multi');
    }
  });
});

describe('legacySessionExchangeHandler', () => {
  it('sets the new session on the response (header mode), refuses a replay with 409 and a bad token with 401', async () => {
    const token = await issuer.rs256({ iss: issuer.url, aud: 'my-app', sub: 'old-multi' });
    const post = (t: string) =>
      fetch(`${appUrl}/auth/legacy-session`, { method: 'POST', headers: { authorization: `Bearer ${t}`, 'st-auth-mode': 'header' } });
    const first = await post(token);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ status: 'OK', userId: 'old-multi' });
    const access = first.headers.get('st-access-token');
    expect(access).toEqual(expect.any(String));
    expect(first.headers.get('st-refresh-token')).toEqual(expect.any(String));
    const session = await Session.getSessionWithoutRequestResponse(access!, undefined, { antiCsrfCheck: false, checkDatabase: true });
    expect(session.getUserId()).toBe('old-multi');
    const again = await post(token);
    expect([again.status, ((await again.json()) as { status: string }).status]).toEqual([409, 'REPLAYED']);
    const wrong = await post(await issuer.rs256({ iss: issuer.url, aud: 'other', sub: 'old-multi' }));
    expect([wrong.status, await wrong.json()]).toEqual([401, { status: 'INVALID_TOKEN', reason: 'wrong audience' }]);
    const none = await fetch(`${appUrl}/auth/legacy-session`, { method: 'POST' });
    expect(none.status).toBe(400);
  });
});
