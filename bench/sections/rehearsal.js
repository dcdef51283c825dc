// Rehearsal throughput: users migrated by the real `auth-migrate run` into a spawned sandbox, beside the raw
// loopback request rate at the same concurrency. kind 'mixed' is the population, 'email-password'
// isolates the store (one password-hash import per user).
import { mkdirSync } from 'node:fs';
import { ensureDataset } from '../lib/data.js';
import { runMigration } from '../lib/migrate.js';
import { startBenchSandbox, processCpuMs, BENCH_API_KEY } from '../lib/sandbox.js';
import { row, fmt } from '../lib/table.js';
import { loadClient, rawLoopback } from './loopback.js';

const MIXED_MAX_S = 90;
const EP_MIN_USERS_PER_S = 2_000;
const EP_MIN_LOOPBACK_RATIO = 0.65;
const EP_MAX_RUNNER_US_PER_USER = 80;

export async function benchRehearsal(ctx, kind) {
  const { cfg, log } = ctx;
  const n = cfg.users;
  const data = await ensureDataset(kind, n, { log });
  const loopback = await rawLoopback(ctx, cfg.concurrency);
  const profDir = cfg.cpuProf ? `${cfg.profDir}/${kind}` : undefined;
  if (profDir) mkdirSync(profDir, { recursive: true });

  const sandbox = await startBenchSandbox({ cpuProfDir: profDir && `${profDir}/sandbox` });
  let run;
  let sandboxCpuMs;
  try {
    const cpuBefore = processCpuMs(sandbox.pid);
    run = await runMigration({
      file: data.file,
      url: sandbox.url,
      apiKey: BENCH_API_KEY,
      concurrency: cfg.concurrency,
      cpuProfDir: profDir && `${profDir}/runner`,
    });
    const cpuAfter = processCpuMs(sandbox.pid);
    if (cpuBefore !== undefined && cpuAfter !== undefined) sandboxCpuMs = cpuAfter - cpuBefore;
  } finally {
    await sandbox.stop();
  }
  const s = run.summary;
  const ok = s.imported === n && s.failed === 0 && s.skipped === 0;
  const migrateMs = s.durationMs ?? run.wallMs;
  const usersPerS = (n * 1000) / run.wallMs;
  const requestsPerS = run.requests !== undefined ? (run.requests * 1000) / migrateMs : undefined;
  const ratio = requestsPerS !== undefined ? requestsPerS / loopback.rps : undefined;
  log(
    `${kind}: ${n} users in ${fmt.s(run.wallMs)} (command) / ${fmt.s(migrateMs)} (migration phase); ` +
      `imported ${s.imported}, failed ${s.failed}, skipped ${s.skipped}; ${run.requests} requests`,
  );
  // CPU per user of each side: unlike rates, these hardly move when the machine is busy, and they say which
  // process would saturate a core first.
  const cpu = {
    runnerUsPerUser: run.cpuMs !== undefined ? (run.cpuMs * 1000) / n : undefined,
    sandboxUsPerRequest: sandboxCpuMs !== undefined && run.requests ? (sandboxCpuMs * 1000) / run.requests : undefined,
  };
  log(
    `  CPU: runner ${Math.round(cpu.runnerUsPerUser)} us/user (whole command), sandbox ${Math.round(cpu.sandboxUsPerRequest)} us/request`,
  );
  if (!ok) log(`  ! not every user was imported: ${JSON.stringify(s)} ${run.stderrTail.join(' | ')}`);

  // The same sandbox driven by the bare client: what the sandbox can take without the runner around the client.
  let bare;
  if (kind === 'email-password') {
    const fresh = await startBenchSandbox();
    try {
      bare = await loadClient(fresh.url, cfg.loopbackRequests, cfg.concurrency);
      log(`sandbox driven by the bare client (password imports) at concurrency ${cfg.concurrency}: ${Math.round(bare.rps)} requests/s`);
    } finally {
      await fresh.stop();
    }
  }

  const label = kind === 'mixed' ? `Rehearsal, mixed users (${fmt.int(n)})` : `Email-password only (${fmt.int(n)})`;
  const rows = [];
  if (kind === 'mixed') {
    rows.push(
      row(
        `${label}: total time`,
        fmt.s(run.wallMs),
        n === 100_000 ? `< ${MIXED_MAX_S} s` : `< ${((MIXED_MAX_S * n) / 100_000).toFixed(1)} s (scaled)`,
        ok && run.wallMs < (MIXED_MAX_S * 1000 * n) / 100_000,
      ),
    );
    rows.push(row(`${label}: users/s`, fmt.rate(usersPerS), null, null));
  } else {
    rows.push(row(`${label}: users/s`, fmt.rate(usersPerS), `>= ${fmt.rate(EP_MIN_USERS_PER_S)}`, ok && usersPerS >= EP_MIN_USERS_PER_S));
  }
  if (ratio !== undefined) {
    rows.push(
      row(
        `${label}: requests/s vs raw loopback (${fmt.rate(loopback.rps)})`,
        `${fmt.rate(requestsPerS)} (${fmt.pct(ratio)})`,
        kind === 'email-password' ? `>= ${fmt.pct(EP_MIN_LOOPBACK_RATIO)}` : null,
        kind === 'email-password' ? ok && ratio >= EP_MIN_LOOPBACK_RATIO : null,
      ),
    );
  }
  if (cpu.runnerUsPerUser !== undefined && cpu.sandboxUsPerRequest !== undefined) {
    const ep = kind === 'email-password';
    rows.push(
      row(
        `${label}: CPU time`,
        `runner ${fmt.int(cpu.runnerUsPerUser)} us/user, sandbox ${fmt.int(cpu.sandboxUsPerRequest)} us/request`,
        ep ? `runner <= ${EP_MAX_RUNNER_US_PER_USER} us/user` : null,
        ep ? cpu.runnerUsPerUser <= EP_MAX_RUNNER_US_PER_USER : null,
      ),
    );
  }
  if (kind === 'email-password' && loopback.bare) {
    rows.push(
      row(
        'Client CPU on raw loopback: core client (undici) vs bare node:http keep-alive',
        `${loopback.cpuUsPerRequest.toFixed(1)} vs ${loopback.bare.cpuUsPerRequest.toFixed(1)} us/request ` +
          `(${fmt.rate(loopback.rps)} vs ${fmt.rate(loopback.bare.rps)} requests/s)`,
        null,
        null,
      ),
    );
  }
  if (bare)
    rows.push(
      row(
        `Sandbox driven by the core client alone (no runner): requests/s vs raw loopback`,
        `${fmt.rate(bare.rps)} (${fmt.pct(bare.rps / loopback.rps)})`,
        null,
        null,
      ),
    );
  return {
    rows,
    data: {
      kind,
      users: n,
      concurrency: cfg.concurrency,
      wallMs: run.wallMs,
      migrateMs,
      summary: s,
      requests: run.requests,
      usersPerS,
      requestsPerS,
      loopbackRps: loopback.rps,
      loopbackCpuUsPerRequest: loopback.cpuUsPerRequest,
      bareLoopback: loopback.bare,
      ratio,
      cpu,
      bareClientSandboxRps: bare?.rps,
    },
  };
}
