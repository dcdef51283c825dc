// Issue 33 point 8: the wizard sets the bulk-staged job interval as `run --job-interval` does. The plan screen's
// "job interval" option is kept in the profile and reaches the run's settings through the same resolution as
// the flag; `run --profile` reads it too. The wizard's sandbox (and `run --sandbox`) runs its job at that interval.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyProfile, loadProfile, saveProfile } from '../../src/profiles/index.js';
import { createRealServices } from '../../src/ui/services/real.js';
import { settingsOf } from '../../src/ui/services/settings.js';
import type { WizardInput, TargetConnection } from '../../src/ui/services/types.js';
import { initialState, reducer } from '../../src/ui/state/reducer.js';
import type { Action } from '../../src/ui/state/types.js';
import { CANONICAL } from '../support/fixture.js';
import { KEYS, renderWizard, waitFor } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'am-job-interval-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const input: WizardInput = { sources: [{ path: CANONICAL, format: 'canonical' }], via: 'bulk-staged' };
const sandbox: TargetConnection = {
  url: 'http://127.0.0.1:9',
  sandbox: { storePath: join(dir, 'store.json'), temporary: false, jobIntervalSec: 5 },
};
const remote: TargetConnection = { url: 'http://127.0.0.1:9' };
const o = { profileName: 'p', cwd: dir, out: dir, readOnly: true };

describe('the bulk-staged job interval in the wizard', () => {
  it("reaches the run's settings as --job-interval would; the default is the sandbox's or the reference core's", async () => {
    expect((await settingsOf({ ...input, jobIntervalSec: 60 }, sandbox, o)).jobIntervalMs).toBe(60_000);
    expect((await settingsOf({ ...input, jobIntervalSec: 3600 }, remote, o)).jobIntervalMs).toBe(3_600_000);
    expect((await settingsOf(input, sandbox, o)).jobIntervalMs).toBe(5_000);
    expect((await settingsOf(input, remote, o)).jobIntervalMs).toBe(300_000);
  });

  it('is an option of the plan screen, stepped with ←/→ and kept in the profile', async () => {
    const env = { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') };
    const profile = { ...emptyProfile('staged'), sources: input.sources, via: 'bulk-staged' as const };
    await saveProfile(profile, {}, env);
    const services = createRealServices({ env, cwd: dir });
    const plan = await services.plan(input, sandbox);
    const actions: Action[] = [
      { type: 'profile-opened', loaded: { profile, secrets: {}, missing: [] } },
      { type: 'target-ready', target: sandbox },
      { type: 'go', step: 'plan' },
      { type: 'plan-ready', plan },
    ];
    const w = renderWizard(services, undefined, { columns: 100, rows: 40 }, actions.reduce(reducer, initialState()));
    try {
      await w.until('6/8 plan');
      expect(w.frame()).toMatch(/job interval\s+every 5 s \(the sandbox's\): how often the core runs its bulk-import job/);
      // The last option: seven rows down, then two steps right (default → 1 s → 5 s → ...: three for 10 s).
      w.stdin.write(`${KEYS.down.repeat(7)}${KEYS.right.repeat(3)}`);
      // The sandbox the target screen started runs its job every 5 s: another interval is said to need a restart.
      await w.until(/› job interval\s+every 10 s: the sandbox runs its job every 5 s; connect it again/);
      w.stdin.write(KEYS.left.repeat(2));
      await w.until(/› job interval\s+every 1 s: the sandbox runs its job every 5 s/);
      w.stdin.write(KEYS.right.repeat(2));
      await w.until(/› job interval\s+every 10 s: the sandbox runs/);
      w.stdin.write(KEYS.escape); // back to the target screen: the move saves the profile
      const saved = await waitFor(async () => (await loadProfile('staged', env)).profile.jobIntervalSec, 'the interval saved');
      expect(saved).toBe(10);
      // `run --profile staged` resolves the same interval.
      expect((await settingsOf({ ...input, jobIntervalSec: saved }, sandbox, o)).jobIntervalMs).toBe(10_000);
    } finally {
      w.unmount();
    }
  });
});
