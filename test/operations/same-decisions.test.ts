// Issue 23's "one core of operations": a headless `auth-migrate run` (the built CLI, --json-events) and a wizard run
// (the wizard's services, as its run screen calls them) of the same export into the same kind of target make the
// same decisions, because both are src/operations/run.ts: what is valid, the whole classes of users refused for a
// missing setting, the question before a real core is written (users there, what will be written), where the
// files go, each user's outcome (imported, already there, skipped) and the exit code.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Confirmation } from '../../src/operations/confirm.js';
import type { RunOperationEvent } from '../../src/operations/events.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { createRealServices } from '../../src/ui/services/real.js';
import { cli, client, LICENSE } from '../support/cli.js';
import { writeNdjson } from '../support/users.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
const FIREBASE_CSV = join(import.meta.dirname, '..', '..', 'fixtures', 'firebase', 'export.csv');
let dir: string;
const cores: RunningSandbox[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-same-'));
  writeNdjson(join(dir, 'users.ndjson'), [
    { id: 's1', email: 's1@example.test', password: { hash: BCRYPT } },
    { id: 's2', email: 's2@example.test', password: { hash: BCRYPT }, totp: [{ secret: 'JBSWY3DPEHPK3PXP', deviceName: 'phone' }] },
    { id: 's3', email: 'there@example.test', password: { hash: BCRYPT } },
    { id: 's4', email: 'not an email', password: { hash: BCRYPT } },
    { id: 's5', phoneNumber: '+14155550100', emailVerified: false },
  ]);
});
afterAll(async () => {
  for (const c of cores) await c.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A core reached by URL (so a real one to both shells) holding one user of the export already. */
async function seededCore(name: string): Promise<RunningSandbox> {
  const core = await startSandbox({ port: 0, store: join(dir, `${name}.json`), licenseKey: LICENSE });
  cores.push(core);
  await client(core.url).importPasswordHash({ email: 'there@example.test', passwordHash: BCRYPT });
  return core;
}

/** The decisions in a run's events and files, with the core's URL and the folders' paths taken out. */
function decisions(events: RunOperationEvent[], folder: string | undefined, url: string) {
  const pick = <T extends RunOperationEvent['type']>(type: T) =>
    events.filter((e): e is Extract<RunOperationEvent, { type: T }> => e.type === type);
  const validated = pick('validated').map((e) => ({ records: e.summary.records, valid: e.summary.valid, invalid: e.summary.invalid }));
  const partial = pick('partial').map((e) => ({ losses: e.losses.map((l) => [l.rule, l.users, l.loses]), allowed: e.allowed }));
  const refused = pick('refused').map((e) => ({ code: e.code, message: e.message, fix: e.fix }));
  const confirm = pick('confirm').map((e) => ({ ...e.confirmation, url: e.confirmation.url.replace(url, 'URL'), typed: 'HOST' }));
  const where = pick('run-folder').map((e) => ({ url: e.url.replace(url, 'URL'), app: e.app, tenant: e.tenant, carriedOn: e.carriedOn }));
  const report = folder
    ? readFileSync(join(folder, 'report.ndjson'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { id: string; outcome: string })
        .map((l) => `${l.id}:${l.outcome}`)
        .sort()
    : [];
  return { validated, partial, refused, confirm, where, report };
}

const folderIn = (where: string) => {
  const found = readdirSync(where).filter((f) => /^canonical-\d{4}/.test(f));
  return found.length === 1 ? join(where, found[0]!) : undefined;
};

describe('a headless run and a wizard run of the same export and target', () => {
  it('make the same decisions: validation, the question before a real core, each user, the exit code', async () => {
    // Headless, in its own folder, on its own core seeded alike.
    const cliCore = await seededCore('cli');
    const cliDir = mkdtempSync(join(dir, 'cli-'));
    const headless = await cli(
      ['run', join(dir, 'users.ndjson'), '--core', cliCore.url, '--license-key', LICENSE, '--json-events', '--yes', '--out', cliDir],
      dir,
    );
    const cliEvents = headless.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as RunOperationEvent);

    // The wizard: its services, as the run screen calls them; `y` answers its question.
    const wizCore = await seededCore('wizard');
    const wizDir = mkdtempSync(join(dir, 'wiz-'));
    const services = createRealServices({ env: { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') }, cwd: wizDir });
    const wizEvents: RunOperationEvent[] = [];
    const asked: Confirmation[] = [];
    const outcome = await services.run(
      { sources: [{ path: join(dir, 'users.ndjson'), format: 'canonical' }] },
      { url: wizCore.url, licenseKey: LICENSE },
      {
        profileName: '',
        onEvent: (e) => wizEvents.push(e),
        confirm: async (c) => {
          asked.push(c);
          return true;
        },
      },
    ).done;

    const a = decisions(cliEvents, folderIn(cliDir), cliCore.url);
    const b = decisions(wizEvents, outcome.folder ?? folderIn(wizDir), wizCore.url);
    // The decisions themselves, so the comparison below cannot pass on two empty lists.
    expect(a.validated).toEqual([{ records: 5, valid: 4, invalid: 1 }]);
    expect(a.confirm).toHaveLength(1);
    expect(a.confirm[0]).toMatchObject({ action: 'run', url: 'URL', app: 'public', tenant: 'public', usersThere: 1 });
    expect(a.report).toEqual(['s1:imported', 's2:imported', 's3:alreadyPresent', 's4:skipped', 's5:imported']);
    expect(asked).toHaveLength(1);
    expect(b).toEqual(a);
    expect(outcome.exitCode).toBe(headless.exitCode);
    expect(headless.exitCode).toBe(1);
  });

  it('refuse alike, before anything is made, a run that would drop a whole class of users', async () => {
    const core = cores[0]!;
    const cliDir = mkdtempSync(join(dir, 'cli-fb-'));
    const headless = await cli(['run', FIREBASE_CSV, '--core', core.url, '--json-events', '--yes', '--out', cliDir], dir);
    const cliEvents = headless.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as RunOperationEvent);
    const wizDir = mkdtempSync(join(dir, 'wiz-fb-'));
    const services = createRealServices({ env: { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') }, cwd: wizDir });
    const wizEvents: RunOperationEvent[] = [];
    const outcome = await services.run(
      { sources: [{ path: FIREBASE_CSV, format: 'firebase-csv' }] },
      { url: core.url },
      { profileName: '', onEvent: (e) => wizEvents.push(e), confirm: async () => true },
    ).done;
    const a = decisions(cliEvents, undefined, core.url);
    const b = decisions(wizEvents, undefined, core.url);
    expect(a.refused).toHaveLength(1);
    expect(a.refused[0]!.code).toBe('partial');
    expect(a.partial[0]!.losses).toEqual([['hash-config.missing', 3, 'their password (every Firebase scrypt hash)']]);
    expect(b).toEqual(a);
    expect(outcome.stopped).toBe('refused');
    expect(outcome.exitCode).toBe(headless.exitCode);
    expect(readdirSync(cliDir)).toEqual([]);
    expect(readdirSync(wizDir)).toEqual([]);
  });
});
