// The results screen's undo (issue 13: rollback with a confirmation in the wizard), against a real sandbox: u counts,
// esc keeps everything, y removes exactly what the run created.
import { mkdtempSync, rmSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyProfile, saveProfile } from '../../src/profiles/index.js';
import { createRealServices } from '../../src/ui/services/real.js';
import type { SandboxHandle, TargetConnection } from '../../src/ui/services/types.js';
import { API_KEY, SIGNER_KEY } from '../support/fixture.js';
import { renderWizard } from './harness.js';
import { migrated } from './migrated.js';

let dir: string;
let env: NodeJS.ProcessEnv;
const sandboxes: SandboxHandle[] = [];
const unmounts: (() => void)[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-undo-'));
  env = { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') };
});
afterEach(async () => {
  for (const u of unmounts.splice(0)) u();
  await Promise.all(sandboxes.splice(0).map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
});

const userCount = async (t: TargetConnection) =>
  ((await (await fetch(`${t.url}/users?limit=100`, { headers: { 'api-key': API_KEY } })).json()) as { users: unknown[] }).users.length;

describe('undo on the results screen', () => {
  it('u shows what would be undone, esc keeps it all, u then y removes what the run created; a run then starts afresh', async () => {
    await saveProfile(emptyProfile('night'), {}, env);
    const services = createRealServices({ env, cwd: dir });
    const { state, target } = await migrated(services, {
      store: join(dir, 'store.json'),
      signerKey: SIGNER_KEY,
      track: (s) => sandboxes.push(s),
    });
    const w = renderWizard(services, undefined, { columns: 80, rows: 24 }, state);
    unmounts.push(w.unmount);
    expect(await w.until('8/8 results: finished')).toContain('u undo the run');
    const before = await userCount(target);
    expect(before).toBe(6);

    await w.press('u');
    // The question names the core and what it holds now, and says what goes.
    const asked = await w.until(/would remove 6 users the run created/);
    expect(asked).toContain(`about to remove from the core ${target.url} (app public, tenant public)`);
    expect(asked).toContain('users there now: 6');
    await w.press('escape');
    await w.until('v verify · i sign in');
    expect(await userCount(target)).toBe(6);

    await w.press('u');
    await w.until('y undoes it');
    await w.press('y');
    await w.until(/undone: 6 users, 0 failed/);
    expect(await userCount(target)).toBe(0);

    // Rehearse again (issue 23): the undo retired the journal, so the same migration starts afresh and imports all.
    const input = { sources: state.profile!.sources, signerKey: SIGNER_KEY };
    const again = await services.run(input, target, { profileName: 'night', onEvent: () => undefined, confirm: async () => false }).done;
    expect(again.error).toBeUndefined();
    expect(again.totals).toMatchObject({ imported: 6, alreadyPresent: 0, failed: 0 });
    // In a fresh run folder: the undone run's folder keeps only its retired journal.
    const first = state.run.outcome?.folder;
    expect(first).toBeDefined();
    expect(again.folder).toBeDefined();
    expect(again.folder).not.toBe(first);
    expect(readdirSync(first!).some((f) => f.startsWith('journal.ndjson.rolled-back'))).toBe(true);
    expect(await userCount(target)).toBe(6);
  });
});

describe('a temporary sandbox store', () => {
  it('is removed when no run used it, and kept when a journal of a run points at it', async () => {
    const { existsSync } = await import('node:fs');
    const services = createRealServices({ env, cwd: dir });
    const unused = await services.startSandbox({ apiKey: API_KEY });
    await unused.stop();
    expect(existsSync(unused.storePath)).toBe(false);
    const { target } = await migrated(services, { store: '', signerKey: SIGNER_KEY, track: (s) => sandboxes.push(s) });
    await Promise.all(sandboxes.splice(0).map((s) => s.stop()));
    expect(existsSync(target.sandbox!.storePath)).toBe(true);
  });
});
