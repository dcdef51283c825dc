// Against a real core (issue 24): runs when AUTH_MIGRATE_TEST_CORE_URL (with AUTH_MIGRATE_TEST_CORE_API_KEY)
// names a core that offers bulk import, e.g. the reference core on PostgreSQL. Each `--via` path beside a bare
// script (bench/lib/bare.js, run as a process of its own as the tool is: bench/lib/bare-cli.js) on the same file,
// back to back in the same run: after each turn the file's users are read back (checked: once each, with their
// join dates) and removed, so that every turn writes the same users into the same core. Users already in the core
// get their external ids mapped on the staged path; and a 1,000,000-user staged run (time, peak RSS, then every
// user read back and checked). Every file's users carry a tag of their own (emails, ids, phone numbers), so a
// shared core that already holds users can be used; only the turns' users are removed, the others' are kept.
// Env: BENCH_REAL_USERS (20,000), BENCH_REAL_BULK_USERS (2,000: the core serialises /bulk-import/import),
// BENCH_REAL_MILLION (1,000,000; 0 skips it), BENCH_REAL_PATHS (steps,bulk,bulk-staged), BENCH_REAL_PAIRS (turns
// of each side, 4 (issue 35: sums over at least 3), in the order of pairOrder; a first bare turn warms the core up and
// is not counted: a core just started ran the job at half its speed), BENCH_REAL_JOB_INTERVAL
// (seconds between the core's bulk-import job runs, default 300 as the reference's; say so when shortened).
// Each turn states its conditions: its figure and the machine's 1-minute load before and after it, in the table and
// in the results, beside the job interval; the staged runs also give the time from the job's last import (the run's
// "reading the core's users back" line: it follows the job's end within a quarter of a second) to their end.
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { DATA_DIR } from '../lib/data.js';
import { computeHashSamples } from '../lib/hashes.js';
import { client, pooled, readUsers, runBare } from '../lib/bare.js';
import { runMigration } from '../lib/migrate.js';
import { runNode } from '../lib/proc.js';
import { row, fmt } from '../lib/table.js';
import { fmtLoad, withLoad } from '../lib/machine.js';
import { pairOrder } from '../lib/pair-order.js';

const BASE_TIME = 1_500_000_000_000;
const pad = (n, w) => String(n).padStart(w, '0');
const PROVIDERS = ['google', 'github', 'facebook', 'apple'];
const MILLION_MINUTES = 15;
const MILLION_MAX_MB = 300;
/** The staged run's phase lines (learning, uploading, following the job, reading back, reporting), timed by the bench. */
const PHASE =
  /^(validated|reading what the core holds|the core holds|waiting for the core's bulk-import job|reading the core's users back|writing the results|finished in)/;
/** The staged run's first line once the job has taken its last row (its count line, else the read-back's). */
const JOB_DONE = /^(core's bulk-import job: .*\b0 staged, 0 processing|reading the core's users back)/;
/** The staged run done within this long of the job's last import (issue 35). */
const AFTER_JOB_MAX_S = 60;

/** Seconds from the job's last import (the run's JOB_DONE line, at `atS` from its start) to the run's end. */
const afterJob = (phases, wallMs) => {
  const done = phases.find((p) => JOB_DONE.test(p.line));
  return done ? Math.max(0, wallMs / 1000 - done.atS) : undefined;
};

/** The staged run's line once its last batch is stored (before its first look at the job). */
const UPLOADED = /^waiting for the core's bulk-import job/;

/** When a staged side's uploads were done, as the rows and the log say it (nothing when not known). */
const uploadedText = (s) => (s !== undefined ? `uploads done at ${s.toFixed(1)} s` : undefined);

/**
 * Each turn in order: its side, users/s, and the machine's load before and after it; on the staged path, when its
 * uploads were done (the job's next run is 0-5 s after that, whichever side: a later end of the uploads is a later
 * run on average, and the rest of a turn's spread is which tick each side met).
 */
const turnsText = (turns) =>
  turns
    .map((t) => `${t.side} ${fmt.rate(t.usersPerS)} (${[uploadedText(t.uploadedS), fmtLoad(t.load)].filter(Boolean).join('; ')})`)
    .join('; ');

/** One user of the reference's PostgreSQL instance (no paid features: one login method, no TOTP): 60% email-password (bcrypt, argon2, Firebase scrypt; half verified), 20% social, 20% phone; a third with an external id. */
export function realUser(i, samples, tag, phoneBase) {
  const u = { id: `${tag}-${i}`, timeJoined: BASE_TIME + i * 1000 };
  const b = i % 10;
  if (b < 6) {
    u.email = `u${i}.${tag}@bench.example`;
    u.emailVerified = i % 2 === 0;
    const k = Math.floor(i / 3) % samples.bcrypt.length;
    u.password =
      i % 3 === 0 ? { hash: samples.bcrypt[k] } : i % 3 === 1 ? { hash: samples.argon2[k] } : { hash: samples.scrypt[k].imported };
  } else if (b < 8) {
    u.email = `u${i}.${tag}@bench.example`;
    u.thirdParty = [{ providerId: PROVIDERS[i % 4], userId: `tp-${tag}-${i}`, email: u.email, emailVerified: true }];
  } else u.phoneNumber = `+4420${pad(phoneBase + i, 8)}`;
  if (i % 3 === 0) u.externalUserId = `ext-${tag}-${i}`;
  return u;
}

/** A tag per file that no earlier run of this bench used (kept in bench/data/), and its own block of phone numbers. */
function nextTag() {
  mkdirSync(DATA_DIR, { recursive: true });
  const file = join(DATA_DIR, 'real-core-runs.json');
  const state = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : { next: 0 };
  const n = state.next++;
  writeFileSync(file, JSON.stringify(state));
  return { tag: `r${Date.now().toString(36)}${n}`, phoneBase: (n % 49) * 2_000_000 };
}

async function writeFile(n, samples, name, only = () => true) {
  const { tag, phoneBase } = nextTag();
  const file = join(DATA_DIR, `real-${name}-${tag}.ndjson`);
  const out = createWriteStream(file);
  for (let i = 0; i < n; i++) {
    if (!only(i)) continue;
    if (!out.write(JSON.stringify(realUser(i, samples, tag, phoneBase)) + '\n')) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return { file, tag, phoneBase };
}

async function bulkImportOffered(url, apiKey) {
  const r = await fetch(`${url.replace(/\/+$/, '')}/bulk-import/users/count`, {
    headers: { 'cdi-version': '5.4', ...(apiKey ? { 'api-key': apiKey } : {}) },
  });
  return r.status === 200 ? undefined : `HTTP ${r.status} ${(await r.text()).slice(0, 100)}`;
}

/** A GET /users token that starts at join time t (the core's token: base64 of "<userId>;<timeJoined>"). */
const tokenAt = (t) => Buffer.from(`ffffffff-ffff-ffff-ffff-ffffffffffff;${t}`).toString('base64');

/**
 * Every user of the core's public tenant whose account info is of the file tagged `tag`: counted, each join date
 * checked. Read in 4 slices at once by join time (the file's users joined at BASE_TIME + i s); a slice stops past its end.
 */
async function readBackTagged(url, apiKey, tag, phoneBase, size, ids) {
  let users = 0;
  let wrongJoin = 0;
  let duplicates = 0;
  const seen = new Set();
  const slices = size >= 20_000 ? 4 : 1;
  const starts = Array.from({ length: slices }, (_, k) => (k === 0 ? undefined : BASE_TIME + Math.floor((k * size) / slices) * 1000));
  const take = (u) => {
    for (const m of u.loginMethods) {
      const key = m.email ?? m.phoneNumber ?? m.thirdParty?.userId ?? '';
      const phone = m.phoneNumber?.startsWith('+4420') ? Number(m.phoneNumber.slice(5)) - phoneBase : -1;
      const i = m.email?.includes(`.${tag}@`)
        ? Number(/^u(\d+)\./.exec(m.email)[1])
        : m.thirdParty?.userId?.startsWith(`tp-${tag}-`)
          ? Number(m.thirdParty.userId.split('-').at(-1))
          : phone >= 0 && phone < size && phone % 10 >= 8
            ? phone
            : undefined;
      if (i === undefined) continue;
      if (seen.has(key)) {
        duplicates++;
        continue;
      }
      users++;
      seen.add(key);
      ids?.add(u.id);
      if (m.timeJoined !== BASE_TIME + i * 1000) wrongJoin++;
    }
  };
  await Promise.all(
    starts.map(async (start, k) => {
      const end = starts[k + 1]; // exclusive: the next slice starts there
      let token = start === undefined ? undefined : tokenAt(start);
      for (;;) {
        const q = new URLSearchParams({ limit: '500', ...(token ? { paginationToken: token } : {}) });
        const r = await fetch(`${url.replace(/\/+$/, '')}/users?${q}`, {
          headers: { 'cdi-version': '5.4', ...(apiKey ? { 'api-key': apiKey } : {}) },
        });
        if (r.status !== 200) throw new Error(`GET /users: HTTP ${r.status} ${(await r.text()).slice(0, 200)}`);
        const page = await r.json();
        let past = false;
        for (const u of page.users) {
          if (end !== undefined && u.timeJoined >= end) {
            past = true;
            break;
          }
          take(u);
        }
        token = page.nextPaginationToken;
        if (past || !token) return;
      }
    }),
  );
  return { users, wrongJoin, duplicates };
}

/** Remove users by id (the core's answer to GET /users: an external id where mapped), 32 at once. */
async function removeUsers(url, apiKey, ids) {
  const c = client(url, apiKey, 32);
  try {
    await pooled([...ids], 32, (userId) => c.call('POST', '/user/remove', { userId }));
  } finally {
    await c.close();
  }
}

const BARE_CLI = new URL('../lib/bare-cli.js', import.meta.url).pathname;

/** A bare script as a process (its wall time from start to exit, as the tool's; when its uploads were done, staged). */
async function runBareProcess(kind, { url, apiKey, file, concurrency }) {
  const t0 = Date.now();
  let uploadedS;
  const onStderr = (text) => {
    if (uploadedS === undefined && /^uploads done$/m.test(text)) uploadedS = (Date.now() - t0) / 1000;
  };
  const r = await runNode(BARE_CLI, [kind, file, url, String(concurrency)], { env: { BENCH_BARE_API_KEY: apiKey ?? '' }, onStderr });
  if (r.code !== 0) throw new Error(`bare ${kind} script exited ${r.code}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  const out = JSON.parse(r.stdout.trim().split('\n').at(-1));
  return { wallMs: r.wallMs, requests: out.requests, innerMs: out.innerMs, uploadedS };
}

export async function benchRealCore(ctx) {
  const { cfg, log } = ctx;
  const url = process.env.AUTH_MIGRATE_TEST_CORE_URL;
  const apiKey = process.env.AUTH_MIGRATE_TEST_CORE_API_KEY;
  if (!url) return { rows: [row('real core: skipped', 'AUTH_MIGRATE_TEST_CORE_URL is not set', null, null)], data: { skipped: 'no core' } };
  const refused = await bulkImportOffered(url, apiKey);
  if (refused)
    return { rows: [row('real core: skipped', `${url} offers no bulk import (${refused})`, null, null)], data: { skipped: refused } };
  const n = Number(process.env.BENCH_REAL_USERS ?? (cfg.quick ? 2_000 : 20_000));
  const bulkN = Number(process.env.BENCH_REAL_BULK_USERS ?? (cfg.quick ? 200 : 2_000));
  const millionN = Number(process.env.BENCH_REAL_MILLION ?? (cfg.quick ? 0 : 1_000_000));
  const paths = (process.env.BENCH_REAL_PATHS ?? 'steps,bulk,bulk-staged').split(',').filter(Boolean);
  const jobInterval = process.env.BENCH_REAL_JOB_INTERVAL ?? '300';
  const concurrency = cfg.concurrency;
  const samples = await computeHashSamples();
  const rows = [];
  const data = { url, jobIntervalSec: Number(jobInterval), concurrency, paths: {} };
  const extra = {
    'bulk-staged': ['--via', 'bulk-staged', '--job-interval', jobInterval],
    bulk: ['--via', 'bulk'],
    steps: ['--via', 'steps'],
  };
  const bareKind = { steps: 'steps', bulk: 'bulk', 'bulk-staged': 'staged' };

  const pairs = Math.max(1, Number(process.env.BENCH_REAL_PAIRS ?? 4));
  const turns = ['warm-up', ...pairOrder(pairs)];
  for (const via of paths) {
    // Back to back in pairOrder, the same file each turn, its users removed after each: every turn writes the same
    // users into the same core, and each side gets as many early turns as late ones.
    const size = via === 'bulk' ? bulkN : n;
    const bares = [];
    const tools = [];
    const f = await writeFile(size, samples, via);
    const inOrder = [];
    for (const turn of turns) {
      if (turn !== 'tool') {
        const { result: bare, load } = await withLoad(() => runBareProcess(bareKind[via], { url, apiKey, file: f.file, concurrency }));
        const usersPerS = (size * 1000) / bare.wallMs;
        log(
          `real core, bare ${via} script${turn === 'warm-up' ? ' (warm-up, not counted)' : ''}: ${size} users in ${fmt.s(bare.wallMs)} ` +
            `(${[fmt.rate(usersPerS), `${bare.requests} requests`, uploadedText(bare.uploadedS)].filter(Boolean).join(', ')}; ${fmtLoad(load)})`,
        );
        if (turn === 'bare') {
          bares.push({ ...bare, usersPerS, load });
          inOrder.push({ side: 'bare', usersPerS, load, uploadedS: bare.uploadedS }); // undefined is left out of the JSON
        }
      } else {
        const t0 = Date.now();
        const phases = [];
        const onStderr = (text) => {
          for (const line of text.split('\n'))
            if (PHASE.test(line)) phases.push({ atS: (Date.now() - t0) / 1000, line: line.slice(0, 160) });
        };
        const { result: tool, load } = await withLoad(() =>
          runMigration({ file: f.file, url, apiKey, concurrency, extraArgs: extra[via], onStderr }),
        );
        const usersPerS = (size * 1000) / tool.wallMs;
        const gap = afterJob(phases, tool.wallMs);
        log(
          `real core, auth-migrate --via ${via}: ${size} users in ${fmt.s(tool.wallMs)} (${fmt.rate(usersPerS)}; ${fmtLoad(load)}), ` +
            `${tool.requests} requests${gap !== undefined ? `, done ${gap.toFixed(1)} s after the job's last import` : ''}; ${JSON.stringify(tool.summary)}`,
        );
        if (phases.length > 0) log(`  phases: ${phases.map((p) => `${p.atS.toFixed(1)} s ${p.line}`).join('; ')}`);
        tools.push({ ...tool, usersPerS, load, afterJobS: gap, phases });
        inOrder.push({ side: 'tool', usersPerS, load, uploadedS: phases.find((p) => UPLOADED.test(p.line))?.atS });
      }
      const ids = new Set();
      const check = await readBackTagged(url, apiKey, f.tag, f.phoneBase, size, ids);
      if (turn === 'tool') tools.at(-1).check = check;
      log(`  read back ${JSON.stringify(check)}; removing the ${ids.size} users for the next turn`);
      await removeUsers(url, apiKey, ids);
    }
    const bareMs = bares.reduce((t, b) => t + b.wallMs, 0);
    const toolMs = tools.reduce((t, x) => t + x.wallMs, 0);
    const ratio = bareMs / toolMs;
    const exact = tools.every((t) => t.summary.imported === size && t.summary.failed === 0 && t.summary.skipped === 0);
    // Every path brings each user once; the bulk paths also keep the join dates (`--via steps` cannot set them).
    const joined = tools.every((t) => t.check.users === size && t.check.duplicates === 0 && (via === 'steps' || t.check.wrongJoin === 0));
    const usersPerS = (pairs * size * 1000) / toolMs;
    const bareRate = (pairs * size * 1000) / bareMs;
    log(`real core --via ${via}: ${fmt.rate(usersPerS)} against the bare script's ${fmt.rate(bareRate)}: ${fmt.x(ratio)}`);
    // Issue 35's targets (issue 24's were 0.8 and 0.9).
    const target = via === 'steps' ? 0.9 : via === 'bulk-staged' ? 0.95 : undefined;
    const job = via === 'bulk-staged' ? `, the core's job every ${jobInterval} s` : '';
    rows.push(
      row(
        `real core --via ${via} (the same ${fmt.int(size)} users ${pairs} times) vs a bare script (${pairs} times), back to back${job}`,
        `${fmt.rate(usersPerS)} vs ${fmt.rate(bareRate)}: ${fmt.x(ratio)}; ${exact ? 'exact' : 'NOT exact'}${via === 'steps' ? (joined ? ', each once' : ', NOT each once') : `, join dates ${joined ? 'kept' : 'NOT kept'}`}`,
        target ? `>= ${target}x, exact` : null,
        target ? ratio >= target && exact && joined : exact && joined,
      ),
      // Each turn's figure and load, so that noise can be told from a regression.
      row(`real core --via ${via}: each turn in order${job}`, turnsText(inOrder), null, null),
    );
    data.paths[via] = {
      users: size,
      jobIntervalSec: via === 'bulk-staged' ? Number(jobInterval) : undefined,
      turns: inOrder,
      bare: bares,
      tool: tools.map((t) => ({
        wallMs: t.wallMs,
        usersPerS: t.usersPerS,
        load: t.load,
        afterJobS: t.afterJobS,
        requests: t.requests,
        peakRssMb: t.peakRssMb,
        summary: t.summary,
        check: t.check,
      })),
      ratio,
      requestsPerUser: tools[0]?.requests !== undefined ? tools[0].requests / size : undefined,
    };
  }

  if (paths.includes('bulk-staged')) {
    // Users already in the core (their passwords imported by a bare script, without external ids): the staged
    // path completes them by the per-user steps, so their external ids are mapped as `--via steps` maps them.
    const size = Math.min(n, 2_000);
    const f = await writeFile(size, samples, 'present');
    const users = await readUsers(f.file);
    const before = users.filter((u, i) => i % 10 === 0 && u.password).map(({ externalUserId: _e, ...u }) => u);
    await runBare('steps', { url, apiKey, users: before, concurrency });
    const { result: tool, load } = await withLoad(() =>
      runMigration({ file: f.file, url, apiKey, concurrency, extraArgs: extra['bulk-staged'] }),
    );
    let mapped = 0;
    const want = before.map((b) => users.find((u) => u.id === b.id)).filter((u) => u?.externalUserId);
    for (const u of want) {
      const r = await fetch(
        `${url.replace(/\/+$/, '')}/recipe/userid/map?userId=${encodeURIComponent(u.externalUserId)}&userIdType=EXTERNAL`,
        {
          headers: { 'cdi-version': '5.4', ...(apiKey ? { 'api-key': apiKey } : {}) },
        },
      );
      if ((await r.json()).status === 'OK') mapped++;
    }
    const s = tool.summary;
    const ok = s.failed === 0 && s.imported + s.alreadyPresent === size && mapped === want.length;
    log(`real core, staged with ${before.length} users already there: ${JSON.stringify(s)}; external ids mapped ${mapped}/${want.length}`);
    rows.push(
      row(
        `real core --via bulk-staged, ${before.length} of ${size} users already there (${fmtLoad(load)})`,
        `external ids mapped ${mapped}/${want.length}; ${JSON.stringify({ imported: s.imported, alreadyPresent: s.alreadyPresent, failed: s.failed })}`,
        'all mapped, exact',
        ok,
      ),
    );
    data.present = { size, present: before.length, mapped, summary: s, load };
  }

  if (millionN > 0) {
    const f = await writeFile(millionN, samples, 'million');
    log(`real core, ${millionN} users staged: ${f.file}`);
    // The time of each phase, from the run's own lines (learning, uploading, following the job, reading back, reporting).
    const t0 = Date.now();
    const phases = [];
    const mark = PHASE;
    const { result: tool, load } = await withLoad(() =>
      runMigration({
        file: f.file,
        url,
        apiKey,
        concurrency,
        extraArgs: [...extra['bulk-staged'], '--batch-size', '10000'],
        onStderr: (text) => {
          for (const line of text.split('\n'))
            if (mark.test(line)) phases.push({ atS: (Date.now() - t0) / 1000, line: line.slice(0, 100) });
        },
      }),
    );
    for (const p of phases) log(`  ${p.atS.toFixed(1)} s: ${p.line}`);
    const gap = afterJob(phases, tool.wallMs);
    const s = tool.summary;
    const check = await readBackTagged(url, apiKey, f.tag, f.phoneBase, millionN);
    const exact = s.imported === millionN && s.failed === 0 && check.users === millionN && check.wrongJoin === 0 && check.duplicates === 0;
    const minutes = tool.wallMs / 60_000;
    log(
      `real core, million staged: ${fmt.s(tool.wallMs)} (${fmtLoad(load)}, the core's job every ${jobInterval} s), ` +
        `peak RSS ${fmt.mb(tool.peakRssMb ?? NaN)}; ${JSON.stringify(s)}; read back ${JSON.stringify(check)}`,
    );
    rows.push(
      row(
        `real core: ${fmt.int(millionN)} users --via bulk-staged, end to end (the core's job every ${jobInterval} s; ${fmtLoad(load)})`,
        `${minutes.toFixed(1)} min, ${exact ? 'exact, join dates kept' : 'NOT exact'}`,
        `< ${MILLION_MINUTES} min, exact`,
        minutes < MILLION_MINUTES && exact,
      ),
      row(
        `real core: ${fmt.int(millionN)} users staged, the tool's end after the job's last import`,
        gap === undefined ? 'not seen' : fmt.s(gap * 1000),
        `< ${AFTER_JOB_MAX_S} s`,
        gap !== undefined && gap < AFTER_JOB_MAX_S,
      ),
    );
    rows.push(
      row(
        `real core: ${fmt.int(millionN)} users staged, tool peak RSS`,
        fmt.mb(tool.peakRssMb ?? NaN),
        `< ${MILLION_MAX_MB} MB`,
        (tool.peakRssMb ?? Infinity) < MILLION_MAX_MB,
      ),
    );
    data.million = {
      users: millionN,
      jobIntervalSec: Number(jobInterval),
      load,
      wallMs: tool.wallMs,
      afterJobS: gap,
      peakRssMb: tool.peakRssMb,
      requests: tool.requests,
      summary: s,
      check,
      phases,
    };
  }
  return { rows, data };
}
