// Issue 23 items 2 and 8 in the wizard: a source that would lose a whole class of users for one missing setting
// (a Supabase users table without its identities and mfa_factors) is named on the plan screen with its fix in the
// wizard's words (screens and keys, not flags); `r` is refused until it is fixed or `a` allows it knowingly.
// The hash params field takes a file's path (shown as typed, read) as well as pasted parameters (masked).
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyProfile } from '../../src/profiles/index.js';
import { createRealServices } from '../../src/ui/services/real.js';
import type { WizardInput, TargetConnection } from '../../src/ui/services/types.js';
import { initialState, reducer } from '../../src/ui/state/reducer.js';
import type { Action } from '../../src/ui/state/types.js';
import { inWizardWords } from '../../src/ui/wizard-words.js';
import { REPO } from '../support/fixture.js';
import { renderWizard } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'am-partial-plan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('whole classes of users lost, in the wizard', () => {
  it('the plan names them with the fix in screens, refuses r, and a goes on knowingly', async () => {
    copyFileSync(join(REPO, 'fixtures', 'supabase', 'users.csv'), join(dir, 'users.csv'));
    const services = createRealServices({ env: { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') }, cwd: dir });
    const input: WizardInput = { sources: [{ path: join(dir, 'users.csv'), format: 'supabase' }] };
    // No core is asked for a plan: a target that is never reached will do.
    const target: TargetConnection = { url: 'http://127.0.0.1:9' };
    const plan = await services.plan(input, target);
    expect(plan.losses.map((l) => l.rule)).toEqual(['companion.missing', 'companion.missing']);
    const actions: Action[] = [
      { type: 'profile-opened', loaded: { profile: { ...emptyProfile('sb'), sources: input.sources }, secrets: {}, missing: [] } },
      { type: 'target-ready', target },
      { type: 'go', step: 'plan' },
      { type: 'plan-ready', plan },
    ];
    const w = renderWizard(services, undefined, { columns: 100, rows: 30 }, actions.reduce(reducer, initialState()));
    try {
      let frame = await w.until('6/8 plan');
      const flat = () => w.frame().replace(/\s+/g, ' ');
      expect(flat()).toContain('2 users would lose their social and SSO logins (auth.identities)');
      expect(flat()).toContain(`give ${join(dir, 'identities.csv')} with the users file`);
      expect(flat()).toContain('press a on the plan screen');
      expect(flat()).not.toContain('--allow-partial');
      expect(flat()).toContain('the run is refused until this is fixed; press a to go on without them');
      expect(frame).toContain('a go on without them');
      await w.press('r');
      frame = await w.until('whole classes of users would be lost');
      expect(frame).toContain('6/8 plan');
      await w.press('a');
      await w.until('going on without them (press a again');
    } finally {
      w.unmount();
    }
  });

  it('flags are said as screens and keys', () => {
    expect(inWizardWords('Set a licence key with the MFA feature (--license-key or AUTH_MIGRATE_LICENSE_KEY).')).toBe(
      'Set a licence key with the MFA feature (licence key, keys screen).',
    );
    expect(inWizardWords('give --hash-config FILE (the "Password hash parameters" of the Firebase console)')).toBe(
      'paste the hash params (or their file path) on the source files screen (the "Password hash parameters" of the Firebase console)',
    );
    expect(inWizardWords('give x.csv with the users file, or run with --allow-partial to go on without them')).toBe(
      'give x.csv with the users file, or press a on the plan screen to go on without them',
    );
  });

  it('the hash params field reads a file given by its path, shown as typed; pasted parameters stay masked', async () => {
    const services = createRealServices({ env: { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config2') }, cwd: REPO });
    const fromFile = await services.parseHashConfig('fixtures/firebase/hash-config.txt');
    expect(fromFile.hashConfig.rounds).toBeGreaterThan(0);
    expect(fromFile.signerKey).toBeTruthy();
    const state = [
      {
        type: 'profile-opened',
        loaded: { profile: { ...emptyProfile('hc'), sources: [] }, secrets: {}, missing: [] },
      } as Action,
      { type: 'go', step: 'source' } as Action,
    ].reduce(reducer, initialState());
    const w = renderWizard(services, undefined, { columns: 100, rows: 30 }, state);
    try {
      await w.until('3/8 source files');
      await w.press('down');
      w.stdin.write('fixtures/firebase/hash-config.txt');
      await w.until('fixtures/firebase/hash-config.txt');
      await w.press('enter');
      await w.until(/rounds \d+ · mem_cost \d+ · signer key set/);
      w.stdin.write('hash_config {');
      const frame = await w.until('•'.repeat(13));
      expect(frame).toMatch(/hash params\s+•{13}\s*$/m);
    } finally {
      w.unmount();
    }
  });
});
