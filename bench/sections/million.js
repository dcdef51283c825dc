// A million users end to end (issue 14): the mixed population migrated by the real `run` into a sandbox on a
// store of its own, then the sandbox restarted on that store, a resume from the journal as a kill at 50% leaves
// it, and `verify` over everything. Each figure beside its target. BENCH_MILLION_USERS changes the size.
// BENCH_MILLION_STORE=DIR keeps the store, journal and the run's figures in DIR (outside the repo) and, when DIR
// already holds them, reuses them instead of migrating again (a real run takes ~10 min); BENCH_MILLION_STEPS
// (run,restart,verify,resume) picks steps, e.g. `restart` alone to measure a start-up change on the same store.
// Each step states its conditions: the machine's 1-minute load before and after it (and the sandbox's bulk-import
// job interval), in the table and in the results.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDataset } from '../lib/data.js';
import { runMigration } from '../lib/migrate.js';
import { track } from '../lib/proc.js';
import { startBenchSandbox, processCpuMs, processRssMb, BENCH_API_KEY } from '../lib/sandbox.js';
import { row, fmt } from '../lib/table.js';
import { fmtLoad, loadNow } from '../lib/machine.js';

const BIN = fileURLToPath(new URL('../../bin/auth-migrate.js', import.meta.url));
const RUN_MAX_MB = 300;
const SANDBOX_MAX_MB = 1200;
const RESTART_MAX_MS = 10_000;
/** The sandbox's bulk-import job interval here (its default, said explicitly). */
const JOB_INTERVAL_SEC = 5;

export async function benchMillion(ctx) {
  const { cfg, log } = ctx;
  const n = cfg.millionUsers;
  const data = await ensureDataset('mixed', n, { log });
  const kept = process.env.BENCH_MILLION_STORE || undefined;
  const steps = new Set((process.env.BENCH_MILLION_STEPS || 'run,restart,verify,resume').split(',').map((x) => x.trim()));
  if (kept) mkdirSync(kept, { recursive: true });
  const dir = kept ?? mkdtempSync(join(tmpdir(), 'auth-migrate-bench-million-'));
  const store = join(dir, 'store.json');
  const journal = join(dir, 'journal.jsonl');
  const runFile = join(dir, 'run.json');
  let out = { users: n };
  // The sandbox listens on the port of the run, so the journal's target stays the same.
  let port;
  try {
    // 1. The run, fresh (or its figures and store from an earlier bench that kept them).
    if (kept && existsSync(runFile) && existsSync(store)) {
      out = { ...JSON.parse(readFileSync(runFile, 'utf8')), reused: dir };
      if (out.users !== n) throw new Error(`${dir} holds a store of ${out.users} users, not ${n}`);
      port = out.port;
      log(`million: reusing the store, journal and run figures in ${dir}`);
    } else if (steps.has('run')) {
      const sandbox = await startBenchSandbox({ store, bulkImportIntervalSec: JOB_INTERVAL_SEC });
      port = out.port = sandbox.port;
      out.jobIntervalSec = JOB_INTERVAL_SEC;
      try {
        const cpu0 = processCpuMs(sandbox.pid);
        const loadBefore = loadNow();
        out.run = await runMigration({ file: data.file, url: sandbox.url, apiKey: BENCH_API_KEY, concurrency: cfg.concurrency, journal });
        out.run.load = { before: loadBefore, after: loadNow() };
        out.sandboxCpuMs = processCpuMs(sandbox.pid) - cpu0;
        out.sandboxImportRss = processRssMb(sandbox.pid);
      } finally {
        await sandbox.stop();
      }
      out.storeMb = statSync(store).size / 2 ** 20;
      out.journalMb = statSync(journal).size / 2 ** 20;
      if (kept) writeFileSync(runFile, JSON.stringify(out, null, 2) + '\n');
    } else throw new Error('BENCH_MILLION_STEPS without run needs BENCH_MILLION_STORE holding an earlier run');
    const s = out.run.summary;
    log(
      `million: ${n} users in ${fmt.s(out.run.wallMs)}; imported ${s.imported}, failed ${s.failed}, skipped ${s.skipped}; ` +
        `run ${Math.round((out.run.cpuMs * 1000) / n)} us CPU/user, peak ${fmt.mb(out.run.peakRssMb)}; ` +
        `sandbox ${Math.round((out.sandboxCpuMs * 1000) / n)} us CPU/user, peak ${fmt.mb(out.sandboxImportRss?.peakMb ?? NaN)}; ` +
        `store ${fmt.mb(out.storeMb)}, journal ${fmt.mb(out.journalMb)}; ${fmtLoad(out.run.load)}`,
    );

    if (!steps.has('restart') && !steps.has('verify') && !steps.has('resume')) return { rows: rowsOf(out, n), data: out };

    // 2. The sandbox restarted on that store: time from the spawn to its first /hello, and its RSS then.
    out.storeBeforeRestartMb = statSync(store).size / 2 ** 20;
    const restartLoad = loadNow();
    const t0 = performance.now();
    // The run's port when verify or resume follow (the journal names its target); any free port for a restart alone.
    const needsRunPort = steps.has('verify') || steps.has('resume');
    const sandbox = await startBenchSandbox({ store, port: needsRunPort ? port : undefined, bulkImportIntervalSec: JOB_INTERVAL_SEC });
    try {
      for (;;) {
        const ok = await fetch(`${sandbox.url}/hello`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      out.restartMs = performance.now() - t0;
      out.restartLoad = { before: restartLoad, after: loadNow() };
      out.restartRss = processRssMb(sandbox.pid);
      out.restartCpuMs = processCpuMs(sandbox.pid);
      log(
        `million: sandbox restarted on ${fmt.mb(out.storeBeforeRestartMb)} of store in ${fmt.s(out.restartMs)} ` +
          `(target < ${fmt.s(RESTART_MAX_MS)}), ${fmt.s(out.restartCpuMs)} CPU; RSS ${fmt.mb(out.restartRss?.rssMb ?? NaN)}, ` +
          `peak ${fmt.mb(out.restartRss?.peakMb ?? NaN)} (target < ${fmt.int(SANDBOX_MAX_MB)} MB)`,
      );

      // 3. verify over everything.
      if (steps.has('verify')) {
        const loadBefore = loadNow();
        out.verify = await runMigration({
          command: 'verify',
          file: data.file,
          url: sandbox.url,
          apiKey: BENCH_API_KEY,
          concurrency: cfg.concurrency,
          journal,
        });
        out.verify.load = { before: loadBefore, after: loadNow() };
        const v = out.verify.summary;
        log(
          `million: verify in ${fmt.s(out.verify.wallMs)}: ok ${v.ok}, missing ${v.missing}, mismatch ${v.mismatch}; peak ${fmt.mb(out.verify.peakRssMb)}`,
        );
      }

      // 4. Resume as after a kill at 50%: the journal cut after the line that finished half the users (what a
      // SIGKILL then leaves: every line fsynced before it), measured up to the first user not taken from it.
      if (steps.has('resume')) {
        const half = join(dir, 'journal-half.jsonl');
        writeFileSync(half, cutAtFinishedUsers(readFileSync(journal, 'utf8'), Math.floor(n / 2)), { mode: 0o600 });
        const loadBefore = loadNow();
        out.resume = await resumeUntilFirstNew(data.file, sandbox.url, half, cfg.concurrency);
        out.resume.load = { before: loadBefore, after: loadNow() };
        rmSync(half, { force: true });
        log(
          `million: resumed from ${Math.floor(n / 2)} finished users: first new user after ${fmt.s(out.resume.ms)}, ` +
            `CPU ${fmt.s(out.resume.cpuMs)}, RSS ${fmt.mb(out.resume.rssMb)} (peak ${fmt.mb(out.resume.peakMb)})`,
        );
      }
      out.sandboxAfterRss = processRssMb(sandbox.pid);
    } finally {
      await sandbox.stop();
    }
  } finally {
    if (!kept) rmSync(dir, { recursive: true, force: true });
  }
  return { rows: rowsOf(out, n), data: out };
}

/** The journal's text up to and including the line on which the `users`-th user finished. */
function cutAtFinishedUsers(text, users) {
  let finished = 0;
  let at = 0;
  while (at < text.length) {
    const nl = text.indexOf('\n', at);
    const line = text.slice(at, nl < 0 ? text.length : nl);
    at = nl < 0 ? text.length : nl + 1;
    if (/"outcome":"(imported|alreadyPresent)"/.test(line) && ++finished >= users) break;
  }
  return text.slice(0, at);
}

/** Run `run` on the cut journal and stop it at its first user not resumed from the journal. */
async function resumeUntilFirstNew(file, url, journal, concurrency) {
  const args = [BIN, 'run', file, '--core', url, '--yes', '--concurrency', String(concurrency), '--journal', journal, '--json-events'];
  const started = performance.now();
  const child = track(
    spawn(process.execPath, args, { env: { ...process.env, AUTH_MIGRATE_API_KEY: BENCH_API_KEY }, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  child.stdout.resume();
  let buf = '';
  let result;
  const exited = once(child, 'exit');
  await new Promise((resolve) => {
    child.stderr.setEncoding('utf8').on('data', (d) => {
      if (result) return;
      buf += d;
      let nl;
      while (!result && (nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!line.includes('"user-done"') || line.includes('"resumed":true')) continue;
        const rss = processRssMb(child.pid);
        result = { ms: performance.now() - started, cpuMs: processCpuMs(child.pid), rssMb: rss?.rssMb, peakMb: rss?.peakMb };
        child.kill('SIGKILL');
        resolve();
      }
    });
    child.on('exit', resolve);
  });
  await exited;
  if (!result) throw new Error(`the resumed run ended without a new user: ${buf.trim().split('\n').slice(-3).join(' | ')}`);
  return result;
}

function rowsOf(o, n) {
  const label = `Million rehearsal, mixed users (${fmt.int(n)})${o.reused ? ' (run reused)' : ''}`;
  const job = o.jobIntervalSec !== undefined ? `, the sandbox's job every ${o.jobIntervalSec} s` : '';
  const s = o.run.summary;
  const ok = s.imported === n && s.failed === 0;
  const rows = [
    row(
      `${label}: wall time, users/s (${fmtLoad(o.run.load)}${job})`,
      `${fmt.s(o.run.wallMs)}, ${fmt.rate((n * 1000) / o.run.wallMs)}`,
      null,
      ok ? null : false,
    ),
    row(
      `${label}: CPU per user`,
      `run ${fmt.int((o.run.cpuMs * 1000) / n)} us, sandbox ${fmt.int((o.sandboxCpuMs * 1000) / n)} us`,
      null,
      null,
    ),
    row(`${label}: run peak RSS (fresh)`, fmt.mb(o.run.peakRssMb), `< ${RUN_MAX_MB} MB`, o.run.peakRssMb < RUN_MAX_MB),
    row(
      `${label}: sandbox RSS while importing (peak)`,
      fmt.mb(o.sandboxImportRss?.peakMb ?? NaN),
      `< ${fmt.int(SANDBOX_MAX_MB)} MB`,
      (o.sandboxImportRss?.peakMb ?? Infinity) < SANDBOX_MAX_MB,
    ),
    row(`${label}: store and journal on disk`, `store ${fmt.mb(o.storeMb)}, journal ${fmt.mb(o.journalMb)}`, null, null),
  ];
  if (o.restartMs !== undefined) {
    const restart = `Sandbox restart on that store (${fmt.mb(o.storeBeforeRestartMb)})`;
    rows.push(
      row(
        `${restart}: spawn to first /hello (${fmtLoad(o.restartLoad)})`,
        `${fmt.s(o.restartMs)} (${fmt.s(o.restartCpuMs)} CPU)`,
        `< ${fmt.s(RESTART_MAX_MS)}`,
        o.restartMs < RESTART_MAX_MS,
      ),
      row(
        `${restart}: RSS at the first /hello (VmRSS)`,
        fmt.mb(o.restartRss?.rssMb ?? NaN),
        `< ${fmt.int(SANDBOX_MAX_MB)} MB`,
        (o.restartRss?.rssMb ?? Infinity) < SANDBOX_MAX_MB,
      ),
      row(
        `${restart}: peak RSS up to then (VmHWM)`,
        fmt.mb(o.restartRss?.peakMb ?? NaN),
        `< ${fmt.int(SANDBOX_MAX_MB)} MB`,
        (o.restartRss?.peakMb ?? Infinity) < SANDBOX_MAX_MB,
      ),
    );
  }
  if (o.resume) {
    rows.push(
      row(
        `Resume after a kill at 50%: up to the first new user (${fmtLoad(o.resume.load)})`,
        `${fmt.s(o.resume.ms)} wall, ${fmt.s(o.resume.cpuMs)} CPU`,
        null,
        null,
      ),
      row(
        `Resume after a kill at 50%: run RSS before the first new user (peak)`,
        `${fmt.mb(o.resume.rssMb)} (${fmt.mb(o.resume.peakMb)})`,
        `< ${RUN_MAX_MB} MB`,
        o.resume.peakMb < RUN_MAX_MB,
      ),
    );
  }
  if (o.verify) {
    const v = o.verify.summary;
    rows.push(
      row(
        `Verify over it: time (${fmt.int(v.ok)} ok of ${fmt.int(v.total)}; ${fmtLoad(o.verify.load)})`,
        `${fmt.s(o.verify.wallMs)}, ${fmt.int((o.verify.cpuMs * 1000) / n)} us CPU/user, peak ${fmt.mb(o.verify.peakRssMb)}`,
        `< the run's ${fmt.s(o.run.wallMs)}`,
        v.ok === v.total && o.verify.wallMs < o.run.wallMs,
      ),
    );
  }
  return rows;
}
