// The file lock (src/files/lock.ts) is exclusive under any interleaving (issue 20, point 11): start-synchronised
// processes race for one lock, round after round, with no lock, a stale lock (its holder's process gone) and an
// old empty lock file left there; in every round exactly one of them holds it. Before the fix, a taker deleted a
// stale or empty lock without checking again, and two held it in a few rounds out of every hundred.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const LOCK = new URL('../../dist/files/lock.js', import.meta.url).href;
const WORKERS = 4;
const ROUNDS = 90;

const WORKER = `
const { acquireLock } = await import(${JSON.stringify(LOCK)});
let held;
process.on('message', async (m) => {
  if (m.type === 'go') {
    while (Date.now() < m.at) {} // every worker starts at the same instant
    try {
      held = await acquireLock(m.path, 'the raced file', 'worker ' + process.pid);
      process.send({ type: 'result', held: true });
    } catch (e) {
      process.send({ type: 'result', held: false, error: String(e.message) });
    }
  } else if (m.type === 'release') {
    await held?.release();
    held = undefined;
    process.send({ type: 'released' });
  } else process.exit(0);
});
process.send({ type: 'ready' });
`;

type Msg = { type: string; held?: boolean; error?: string };
let dir: string;
let workers: ChildProcess[] = [];

const next = (w: ChildProcess): Promise<Msg> => new Promise((resolve) => w.once('message', (m) => resolve(m as Msg)));

async function deadPid(): Promise<number> {
  const p = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => p.once('exit', r));
  return p.pid!;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-lock-race-'));
  workers = Array.from({ length: WORKERS }, () =>
    spawn(process.execPath, ['--input-type=module', '-e', WORKER], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
  );
  await Promise.all(workers.map((w) => next(w)));
});
afterAll(() => {
  for (const w of workers) w.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe('file lock', () => {
  it('is held by exactly one of several start-synchronised processes, with or without a stale lock there', async () => {
    const path = join(dir, 'journal.ndjson');
    const lock = `${path}.lock`;
    const dead = await deadPid();
    const doubles: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const kind = ['none', 'stale', 'old-empty'][round % 3]!;
      if (kind === 'stale') {
        writeFileSync(lock, JSON.stringify({ pid: dead, host: hostname(), since: new Date().toISOString(), by: 'a crashed run' }));
      } else if (kind === 'old-empty') {
        writeFileSync(lock, ''); // torn by an older version's crash, long ago
        const old = new Date(Date.now() - 60_000);
        utimesSync(lock, old, old);
      }
      const at = Date.now() + 30;
      const results = await Promise.all(
        workers.map((w) => {
          const r = next(w);
          w.send({ type: 'go', path, at });
          return r;
        }),
      );
      const holders = results.filter((r) => r.held).length;
      if (holders !== 1) doubles.push(`round ${round} (${kind}): ${holders} held it`);
      for (const r of results.filter((x) => !x.held)) expect(r.error).toMatch(/is in use by worker \d+|could not take the lock/);
      await Promise.all(
        workers.map((w) => {
          const r = next(w);
          w.send({ type: 'release' });
          return r;
        }),
      );
      // Nothing is left behind: no lock, no temporary file, no takeover right.
      expect(readdirSync(dir)).toEqual([]);
    }
    expect(doubles).toEqual([]);
  });
});
