// Issue 33 point 8: the wizard's sync ends as `run --sync` does. The same first run and the same newer export, on
// two sandboxes as alike as can be: the sync headless on one, the wizard's sync service (the one its run screen
// starts; the wizard exits with its code) on the other: the same exit code and the same counts, when the sync is
// clean (0), when some users are not migrated (1), and when it is refused before any write (2: the core was reset).
// And the sync's dry run names each user with its email, and a new user's steps.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { createRealServices } from '../../src/ui/services/real.js';
import type { WizardInput } from '../../src/ui/services/types.js';
import type { CanonicalUser } from '../../src/records/types.js';
import { allUsers, cli, client, LICENSE, summaryOf } from '../support/cli.js';
import { buildSyncSets } from '../support/sync-sets.js';
import { SCRYPT_SIGNER_KEY, writeNdjson } from '../support/users.js';

vi.setConfig({ testTimeout: 240_000 });

const sizes = { users: 30, new: 2, password: 2, email: 2, devicesRemoved: 1, devicesAdded: 1, disabled: 1, deleted: 2, profile: 1 };
const env = { AUTH_MIGRATE_LICENSE_KEY: LICENSE, AUTH_MIGRATE_SIGNER_KEY: SCRYPT_SIGNER_KEY };
let dir: string;
const started: RunningSandbox[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-sync-parity-'));
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.stop()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function sandbox(store: string, port = 0): Promise<RunningSandbox> {
  const s = await startSandbox({ port, store: join(dir, store), licenseKey: LICENSE, signerKey: SCRYPT_SIGNER_KEY });
  started.push(s);
  return s;
}

/** The first run into `url`, headless, its run folders under `out`. */
async function firstRun(file: string, url: string, out: string): Promise<void> {
  const r = await cli(['run', file, '--core', url, '--yes', '--out', out, '--json'], dir, env);
  expect(r.exitCode, r.stderr.slice(-2000)).toBe(0);
}

async function headlessSync(file: string, url: string, out: string) {
  const r = await cli(['run', file, '--core', url, '--yes', '--out', out, '--sync', '--json'], dir, env);
  const s = summaryOf(r.stdout) as { failed?: number; skipped?: number; applied?: Record<string, number>; refused?: string };
  return { code: r.exitCode, failed: s.failed ?? 0, skipped: s.skipped ?? 0, applied: s.applied ?? {}, refused: s.refused };
}

async function wizardSync(file: string, url: string, out: string) {
  const services = createRealServices({ env: { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') }, cwd: dir, out: join(dir, out) });
  const input: WizardInput = { sources: [{ path: join(dir, file), format: 'canonical' }], signerKey: SCRYPT_SIGNER_KEY };
  const target = { url, licenseKey: LICENSE };
  const offer = await services.sync!.offer(input, target);
  expect(offer, 'the wizard offers the sync').toBeDefined();
  await services.sync!.preview(input, target, { removeMissing: false, profileName: 'parity' });
  const o = await services.sync!.start(input, target, {
    removeMissing: false,
    profileName: 'parity',
    onEvent: () => undefined,
    confirm: async () => true,
  }).done;
  const applied = Object.fromEntries(Object.entries(o.applied).filter(([, v]) => v));
  return { code: services.exitCode(), failed: o.totals.failed, skipped: o.totals.skipped, applied, refused: o.refusal?.code };
}

/** Two sandboxes given the same first run: one for each shell. */
async function twoCores(name: string, base: CanonicalUser[]) {
  writeNdjson(join(dir, `${name}-1.ndjson`), base);
  const a = await sandbox(`${name}-a.json`);
  const b = await sandbox(`${name}-b.json`);
  await firstRun(`${name}-1.ndjson`, a.url, `${name}-runs-a`);
  await firstRun(`${name}-1.ndjson`, b.url, `${name}-runs-b`);
  return { a, b };
}

describe('the wizard sync and run --sync end alike', () => {
  it('clean: exit 0 and the same changes', async () => {
    // Nobody disabled or gone (without --remove-missing those are listed and left: exit 1).
    const sets = buildSyncSets({ ...sizes, disabled: 0, deleted: 0 }, 'pc');
    const { a, b } = await twoCores('clean', sets.base);
    writeNdjson(join(dir, 'clean-2.ndjson'), sets.newer);
    const headless = await headlessSync('clean-2.ndjson', a.url, 'clean-runs-a');
    const wizard = await wizardSync('clean-2.ndjson', b.url, 'clean-runs-b');
    expect(headless.code).toBe(0);
    expect(headless.applied.new).toBe(2);
    expect(wizard).toEqual(headless);
  });

  it('some users not migrated: exit 1 and the same counts', async () => {
    const sets = buildSyncSets(sizes, 'pf');
    const { a, b } = await twoCores('fail', sets.base);
    // A new user with no way to sign in: invalid, not migrated; the rest goes on.
    writeNdjson(join(dir, 'fail-2.ndjson'), [...sets.newer, { id: 'pf-nothing', email: 'nothing@example.test' }]);
    const headless = await headlessSync('fail-2.ndjson', a.url, 'fail-runs-a');
    const wizard = await wizardSync('fail-2.ndjson', b.url, 'fail-runs-b');
    expect(headless.code).toBe(1);
    expect(headless.skipped).toBeGreaterThan(0);
    expect(wizard).toEqual(headless);
  });

  it('refused before any write (the core was reset): exit 2 in both, nothing written', async () => {
    const sets = buildSyncSets(sizes, 'pr');
    writeNdjson(join(dir, 'reset-1.ndjson'), sets.base);
    writeNdjson(join(dir, 'reset-2.ndjson'), sets.newer);
    const first = await sandbox('reset-first.json');
    await firstRun('reset-1.ndjson', first.url, 'reset-runs');
    const port = Number(new URL(first.url).port);
    await first.stop();
    started.splice(started.indexOf(first), 1);
    // The same address, an empty store: the journal's users are not there.
    const empty = await sandbox('reset-empty.json', port);
    const headless = await headlessSync('reset-2.ndjson', empty.url, 'reset-runs');
    const wizard = await wizardSync('reset-2.ndjson', empty.url, 'reset-runs');
    expect(headless.code).toBe(2);
    expect(wizard).toEqual(headless);
    expect(await allUsers(client(empty.url))).toHaveLength(0);
  });

  it('the dry run names each user with its email, and a new user with its steps', async () => {
    const sets = buildSyncSets(sizes, 'pd');
    const { a } = await twoCores('dry', sets.base);
    writeNdjson(join(dir, 'dry-2.ndjson'), sets.newer);
    const r = await cli(['run', 'dry-2.ndjson', '--core', a.url, '--out', 'dry-runs-a', '--sync', '--dry-run'], dir, env);
    expect(r.exitCode, r.stderr).toBe(0);
    const emailOf = new Map([...sets.base, ...sets.newer].map((u) => [u.id, u.email]));
    for (const id of sets.added) {
      expect(r.stdout).toContain(`${id} (${emailOf.get(id)})`);
      // Its steps, numbered, as run plans them (never a hash).
      expect(r.stdout).toMatch(
        new RegExp(`new user ${id} \\(${emailOf.get(id)!.replace(/[.+]/g, '\\$&')}\\): migrated as by run, \\d+ steps?\\n  1\\. `),
      );
    }
    for (const id of sets.deleted) if (emailOf.get(id)) expect(r.stdout).toContain(`${id} (${emailOf.get(id)})`);
    const changed = sets.changedPasswords[0]!;
    expect(r.stdout).toMatch(new RegExp(`changed password: 2 users: .*\\(${changed.email.replace(/[.+]/g, '\\$&')}\\)`));
    expect(r.stdout).not.toMatch(/\$2[aby]\$/);
  });
});
