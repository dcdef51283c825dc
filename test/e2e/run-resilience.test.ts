// End to end, the hard cases: `run` SIGKILLed mid-way then rerun; the sandbox killed and restarted during a
// run; a proxy injecting 503/429/drops into 5% of requests; SIGINT then the printed resume command.
import { decodeJournalLine } from '../../src/engine/journal/lines.js';
import { mkdtempSync, readFileSync, rmSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { allUsers, BIN, cleanEnv, cli, client, LICENSE, summaryOf, waitFor } from '../support/cli.js';
import { generateUsers, SCRYPT_SIGNER_KEY, writeNdjson } from '../support/users.js';

let dir: string;
let sandbox: RunningSandbox | undefined;
let proxy: FaultProxy | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-res-'));
});
afterEach(async () => {
  await proxy?.stop();
  await sandbox?.stop();
  proxy = undefined;
  sandbox = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function journalUsers(path: string): number {
  if (!existsSync(path)) return 0;
  // Complete lines only: a line torn by the kill does not count (the rerun ignores it too).
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => {
      try {
        return decodeJournalLine(line).some((e) => e.type === 'user');
      } catch {
        return false;
      }
    }).length;
}

function spawnRun(args: string[]) {
  const child = execa(process.execPath, [BIN, 'run', ...args], { cwd: dir, reject: false, env: cleanEnv(), extendEnv: false });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  return { child, stderr: () => stderr };
}

/** Every source user is in the store exactly once (a primary per source user; no email twice). */
async function expectStoreExactly(url: string, n: number): Promise<void> {
  const users = await allUsers(client(url));
  expect(users.length).toBe(n);
  const emails = users.flatMap((u) => u.loginMethods.filter((m) => m.recipeId === 'emailpassword').map((m) => m.email));
  expect(new Set(emails).size).toBe(emails.length);
}

describe('resilience', () => {
  it('a SIGKILL of run mid-way, then the same command: exact totals and no duplicate', async () => {
    const set = generateUsers(240);
    writeNdjson(join(dir, 'users.ndjson'), set.users);
    sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE, signerKey: SCRYPT_SIGNER_KEY });
    // A little latency so the kill surely lands in the middle.
    proxy = await startFaultProxy({ target: sandbox.url, latencyMs: 8 });
    const args = ['users.ndjson', '--core', proxy.url, '--yes', '--journal', 'j.ndjson', '--concurrency', '8', '--json'];
    const first = spawnRun(args);
    await waitFor(() => {
      if (first.child.exitCode !== null) throw new Error(`run ended before the kill: ${first.stderr()}`);
      return journalUsers(join(dir, 'j.ndjson')) >= 40;
    }, 'the journal to record 40 users');
    expect(first.child.exitCode).toBeNull();
    first.child.kill('SIGKILL');
    const killed = await first.child;
    expect(killed.signal).toBe('SIGKILL');
    const doneBefore = journalUsers(join(dir, 'j.ndjson'));
    expect(doneBefore).toBeLessThan(240);

    const second = await cli(['run', ...args], dir);
    expect(second.exitCode, second.stderr).toBe(0);
    const s = summaryOf(second.stdout);
    expect(s.failed).toBe(0);
    expect((s.imported as number) + (s.alreadyPresent as number)).toBe(240);
    expect(s.resumed).toBeGreaterThanOrEqual(doneBefore);
    expect(s.resumed).toBeLessThan(240);
    await expectStoreExactly(sandbox.url, 240);
    const v = await cli(['verify', 'users.ndjson', '--core', sandbox.url, '--journal', 'j.ndjson', '--json'], dir);
    expect(summaryOf(v.stdout)).toMatchObject({ ok: 240, missing: 0, mismatch: 0 });
  });

  it('the sandbox killed and restarted on the same store and port: the run waits, retries and completes', async () => {
    const set = generateUsers(400, { simple: true, prefix: 'k' });
    writeNdjson(join(dir, 'users.ndjson'), set.users);
    const store = join(dir, 'store.json');
    sandbox = await startSandbox({ store, licenseKey: LICENSE });
    const { url, port } = sandbox;
    const run = spawnRun(['users.ndjson', '--core', url, '--yes', '--concurrency', '2', '--json-events', '--json']);
    await waitFor(() => /"type":"user-done"/.test(run.stderr()), 'the first users');
    sandbox.kill('SIGKILL');
    // The run meets refused connections and retries; only then does the core come back.
    await waitFor(() => /"type":"retry".*"reason":"(ECONNREFUSED|ECONNRESET|socket hang up)/.test(run.stderr()), 'a retry');
    sandbox = await startSandbox({ store, port, licenseKey: LICENSE });
    const r = await run.child;
    expect(r.exitCode, run.stderr()).toBe(0);
    const s = summaryOf(r.stdout as string);
    expect(s).toMatchObject({ total: 400, failed: 0 });
    expect((s.imported as number) + (s.alreadyPresent as number)).toBe(400);
    await expectStoreExactly(sandbox.url, 400);
  });

  it('a proxy faulting 5% of requests (503, 429 with Retry-After, drops before and after forwarding): every user exactly once', async () => {
    const set = generateUsers(120, { prefix: 'f' });
    writeNdjson(join(dir, 'users.ndjson'), set.users);
    sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE, signerKey: SCRYPT_SIGNER_KEY });
    proxy = await startFaultProxy({ target: sandbox.url, faultRate: 0.05, seed: 7, retryAfter: '1' });
    const r = await cli(['run', 'users.ndjson', '--core', proxy.url, '--yes', '--concurrency', '12', '--json'], dir);
    expect(r.exitCode, r.stderr).toBe(0);
    // Retries by the hundred leave no Node warning on stderr (MaxListenersExceededWarning and the like).
    expect(r.stderr).not.toMatch(/Warning/);
    const s = summaryOf(r.stdout);
    expect(s).toMatchObject({ total: 120, failed: 0, skipped: 0 });
    expect((s.imported as number) + (s.alreadyPresent as number)).toBe(120);
    for (const kind of ['503', '429', 'drop', 'reset-after-forward'] as const) expect(proxy.stats.faults[kind]).toBeGreaterThan(0);
    await expectStoreExactly(sandbox.url, 120);
    const v = await cli(['verify', 'users.ndjson', '--core', sandbox.url, '--json'], dir);
    expect(v.exitCode, v.stdout).toBe(0);
    expect(summaryOf(v.stdout)).toMatchObject({ total: 120, ok: 120 });
  });

  it('SIGINT stops safely with exit 130 and prints a resume command (no secret) that finishes the job', async () => {
    const API_KEY = 'sigint-api-key-0123456789abc';
    const set = generateUsers(300, { simple: true, prefix: 'i' });
    writeNdjson(join(dir, 'users.ndjson'), set.users);
    sandbox = await startSandbox({ store: join(dir, 'store.json'), apiKeys: [API_KEY] });
    proxy = await startFaultProxy({ target: sandbox.url, latencyMs: 8 });
    const run = spawnRun(['users.ndjson', '--core', proxy.url, '--yes', '--api-key', API_KEY, '--concurrency', '4']);
    await waitFor(() => /\d+\/300 users/.test(run.stderr()), 'progress');
    run.child.kill('SIGINT');
    const r = await run.child;
    expect(r.exitCode, run.stderr()).toBe(130);
    expect(run.stderr()).not.toContain(API_KEY);
    // The key is not in the command, nor a reference to it: the line says to export it first.
    const resume = /to resume: export AUTH_MIGRATE_API_KEY .*, then: (auth-migrate run .*)$/m.exec(run.stderr())?.[1];
    // Also saved whole beside the journal (0600), to copy after the terminal is gone.
    const saved = /resume command saved in (\S+)$/m.exec(run.stderr())?.[1];
    expect(readFileSync(saved!, 'utf8')).toBe(
      `# This run used keys from AUTH_MIGRATE_API_KEY: export it before running the command below.\n${resume}\n`,
    );
    expect(statSync(saved!).mode & 0o777).toBe(0o600);
    expect(resume).not.toContain('--api-key');
    expect(resume).toContain('--journal ');
    // Run the printed command through a shell, with the key in the environment as it says.
    const again = await execa('sh', ['-c', resume!.replace(/^auth-migrate /, `"${process.execPath}" "${BIN}" `) + ' --json'], {
      cwd: dir,
      reject: false,
      env: cleanEnv({ AUTH_MIGRATE_API_KEY: API_KEY }),
      extendEnv: false,
    });
    expect(again.exitCode, again.stderr).toBe(0);
    const s = summaryOf(again.stdout);
    expect((s.imported as number) + (s.alreadyPresent as number)).toBe(300);
    expect(s.resumed).toBeGreaterThan(0);
    expect((await allUsers(client(sandbox.url, API_KEY))).length).toBe(300);
  });

  it('a Ctrl-C to the whole process group of `run --sandbox` stops the run safely; its sandbox survives until the end', async () => {
    const set = generateUsers(600, { simple: true, prefix: 'c' });
    writeNdjson(join(dir, 'users.ndjson'), set.users);
    const args = ['run', 'users.ndjson', '--sandbox', '--store', 'rehearsal.json', '--concurrency', '2'];
    // Its own process group, like a shell job: the signal goes to the group, as a terminal sends it.
    const child = execa(process.execPath, [BIN, ...args], { cwd: dir, reject: false, env: cleanEnv(), extendEnv: false, detached: true });
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    await waitFor(() => /\d+\/600 users/.test(stderr), 'progress');
    const started = Date.now();
    process.kill(-child.pid!, 'SIGINT');
    const r = await child;
    expect(r.exitCode, stderr).toBe(130);
    // In-flight steps ended promptly: no minute of retries against a dead core.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(stderr).not.toMatch(/retr(y|ies)/);
    const resumed = await cli([...args, '--json'], dir);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const s = summaryOf(resumed.stdout);
    expect((s.imported as number) + (s.alreadyPresent as number)).toBe(600);
    expect(s.resumed).toBeGreaterThan(0);
  });
});
