// Issue 33 item 3: every plan option that changes who or what is migrated plans again, so the summary and the
// dry run are the plan `r` runs. An export with hashes the core cannot take (a Keycloak realm's pbkdf2): "skip" leaves
// them out, "migrate at sign-in" imports them, and the screen must say so before `r`. (Here: md5 and pbkdf2 users.)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyProfile } from '../../src/profiles/index.js';
import { createRealServices } from '../../src/ui/services/real.js';
import type { WizardInput, TargetConnection } from '../../src/ui/services/types.js';
import { initialState, reducer } from '../../src/ui/state/reducer.js';
import type { Action } from '../../src/ui/state/types.js';
import { KEYS, renderWizard } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'am-replan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('plan options that change who is migrated', () => {
  it('unusable hashes → migrate at sign-in plans again: the summary and the dry run count the users it adds', async () => {
    const services = createRealServices({ env: { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') }, cwd: dir });
    const users = [
      { id: 'u-md5', email: 'md5@example.test', password: { hash: '5f4dcc3b5aa765d61d8327deb882cf99' } },
      { id: 'u-pbkdf2', email: 'pbkdf2@example.test', password: { hash: 'pbkdf2_sha256$260000$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA==' } },
      { id: 'u-ok', email: 'ok@example.test', password: { hash: '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW' } },
    ];
    writeFileSync(join(dir, 'users.ndjson'), users.map((u) => JSON.stringify(u)).join('\n') + '\n');
    const input: WizardInput = { sources: [{ path: join(dir, 'users.ndjson'), format: 'canonical' }] };
    // The plan asks no core: a target never reached will do.
    const target: TargetConnection = { url: 'http://127.0.0.1:9' };
    const skipping = await services.plan(input, target);
    const atSignIn = await services.plan({ ...input, unusableHashes: 'migrate-at-sign-in' }, target);
    expect(atSignIn.users).toBeGreaterThan(skipping.users);
    const actions: Action[] = [
      { type: 'profile-opened', loaded: { profile: { ...emptyProfile('hashes'), sources: input.sources }, secrets: {}, missing: [] } },
      { type: 'target-ready', target },
      { type: 'go', step: 'plan' },
      { type: 'plan-ready', plan: skipping },
    ];
    const w = renderWizard(services, undefined, { columns: 100, rows: 30 }, actions.reduce(reducer, initialState()));
    const flat = () => w.frame().replace(/\s+/g, ' ');
    try {
      await w.until('6/8 plan');
      expect(flat()).toContain(`${skipping.users} users to migrate`);
      // To "unusable hashes", two steps right (skip → without password → migrate at sign-in), then the dry run.
      w.stdin.write(`${KEYS.down.repeat(4)}${KEYS.right}${KEYS.right}d`);
      await w.until(/unusable hashes\s+import them whole/);
      await w.until(`${atSignIn.users} users to migrate`);
      await w.until('dry run: nothing was written');
      expect(flat()).toContain(`${atSignIn.skipped} records skipped`);
    } finally {
      w.unmount();
    }
  });
});
