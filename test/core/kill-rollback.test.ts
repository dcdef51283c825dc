// Issue 31 against a real core (`npm run test:core`, AUTH_MIGRATE_TEST_CORE_URL): on each `--via` path the core
// offers (steps always; bulk where it has bulk import; bulk-staged with AUTH_MIGRATE_TEST_CORE_STAGED=1), runs
// SIGKILLed at spread moments, each followed by the same command and a rollback, leave this test's users of the
// core exactly as before (ids, login methods, verified flags, metadata, roles, TOTP devices), and the rollback takes
// none of the run's users for one that was there before. AUTH_MIGRATE_TEST_CORE_KILLS (5) and _USERS (300) size it;
// AUTH_MIGRATE_TEST_CORE_PATHS picks paths. The sandbox twin is test/e2e/kill-rerun-rollback.test.ts.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreClient, CoreUser } from '../../src/core-client/types.js';
import { BIN, cleanEnv, cli, summaryOf, waitFor } from '../support/cli.js';
import { coreState } from '../support/core-state.js';
import { writeNdjson } from '../support/users.js';
import {
  CORE_API_KEY,
  CORE_URL,
  coreClient,
  coreFeatures,
  envNumber,
  mixedUsers,
  runPrefix,
  scratch,
  skippedWithoutCore,
} from '../support/real-core.js';

const skipped = skippedWithoutCore('test/core/kill-rollback.test.ts');
const STAGED = process.env.AUTH_MIGRATE_TEST_CORE_STAGED === '1';
const KILLS = envNumber('AUTH_MIGRATE_TEST_CORE_KILLS', 5);
const USERS = envNumber('AUTH_MIGRATE_TEST_CORE_USERS', 300);
const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
const env = { AUTH_MIGRATE_API_KEY: CORE_API_KEY };

let dir: string;
let removeDir: () => void = () => undefined;
let core: CoreClient;
let features: string[] = [];
let paths: string[] = ['steps'];
let beforeEmail = '';

beforeAll(async () => {
  if (skipped) return;
  ({ dir, remove: removeDir } = scratch('kill-rollback'));
  core = coreClient();
  features = await coreFeatures(core);
  const bulk = await core.bulkImport.countUsers().then(
    () => true,
    () => false,
  );
  if (bulk) paths = STAGED ? ['steps', 'bulk', 'bulk-staged'] : ['steps', 'bulk'];
  // AUTH_MIGRATE_TEST_CORE_PATHS=bulk,bulk-staged: only those paths; one the core does not offer fails the suite
  // (a run of no path would pass having checked nothing).
  const only = process.env.AUTH_MIGRATE_TEST_CORE_PATHS?.split(',');
  if (only) {
    const missing = only.filter((p) => !paths.includes(p as (typeof paths)[number]));
    if (missing.length > 0) throw new Error(`AUTH_MIGRATE_TEST_CORE_PATHS asks for ${missing.join(', ')}, which this core does not offer`);
    paths = paths.filter((p) => only.includes(p));
  }
  beforeEmail = `${runPrefix('kb')}-there-before@example.test`;
  await core.importPasswordHash({ email: beforeEmail, passwordHash: BCRYPT });
});
afterAll(() => {
  core?.close();
  removeDir();
});

/** This test's users of the core (its prefix's emails, provider ids and phones), in a comparable form. */
const state = (mine: (u: CoreUser) => boolean): Promise<string[]> => coreState(core, { mine, devices: features.includes('mfa') });

describe.skipIf(skipped)('kill, rerun, rollback against a real core', () => {
  it(`each --via path the core offers: ${KILLS} SIGKILLs, reruns and rollbacks leave the core as before`, async () => {
    for (const via of paths) {
      for (let k = 0; k < KILLS; k++) {
        const prefix = runPrefix(`k${via.charAt(0)}${via.length}`);
        const users = [...mixedUsers(USERS, prefix, features), { id: `${prefix}-before`, email: beforeEmail, password: { hash: BCRYPT } }];
        const phones = new Set(users.flatMap((u) => [u.phoneNumber, u.otpFactors?.phoneNumber].filter((p): p is string => !!p)));
        const mine = (u: CoreUser): boolean =>
          u.loginMethods.some(
            (m) =>
              (m.email ?? '').startsWith(prefix) ||
              m.email === beforeEmail ||
              (m.thirdParty?.userId ?? '').includes(prefix) ||
              (m.phoneNumber !== undefined && phones.has(m.phoneNumber)),
          );
        const sub = join(dir, `${via}-${k}`);
        mkdirSync(sub, { recursive: true });
        writeNdjson(join(sub, 'users.ndjson'), users);
        const before = await state(mine);
        const args = ['run', 'users.ndjson', '--core', CORE_URL!, '--via', via, '--journal', 'j.ndjson', '--yes', '--json'];
        const child = execa(process.execPath, [BIN, ...args], { cwd: sub, reject: false, env: cleanEnv(env), extendEnv: false });
        const journal = join(sub, 'j.ndjson');
        await waitFor(
          () => child.exitCode !== null || (existsSync(journal) && statSync(journal).size > 400),
          'the first journal lines',
          120_000,
        );
        await sleep(200 + ((k * 1_913) % 4_000));
        child.kill('SIGKILL');
        await child;
        const rerun = await cli(args, sub, env);
        expect(rerun.exitCode, `${via} kill ${k}: ${rerun.stderr}`).toBe(0);
        const undo = await cli(['rollback', '--journal', 'j.ndjson', '--yes', '--json'], sub, env);
        expect(undo.exitCode, `${via} kill ${k}: ${undo.stderr}`).toBe(0);
        const r = summaryOf(undo.stdout);
        console.log(`${via} kill ${k}: rerun ${JSON.stringify(summaryOf(rerun.stdout))}; rollback ${undo.stdout.trim()}`);
        expect({ kept: r.kept, undone: r.undone, failed: r.failed }, `${via} kill ${k}`).toEqual({ kept: 0, undone: 0, failed: 0 });
        expect(await state(mine), `${via} kill ${k}: the core as before the run`).toEqual(before);
      }
    }
  });
});
