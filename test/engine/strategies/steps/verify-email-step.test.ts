// The verify-email step against a REAL sandbox: created then "already" on a rerun, the external id after a
// mapping, and a consume whose answer is lost (the retry meets a spent token) still counts as done.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoreClient, type CoreClient } from '../../../../src/core-client/index.js';
import { executeStep, newUserIds, applyStepIds } from '../../../../src/engine/strategies/steps/execute.js';
import type { Step } from '../../../../src/engine/plan/steps.js';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/spawn.js';
import { startFaultProxy, type FaultProxy } from '../../../support/fault-proxy.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
let sb: RunningSandbox;
let core: CoreClient;

beforeAll(async () => {
  sb = await startSandbox({});
  core = createCoreClient({ url: sb.url, retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 5 } });
});
afterAll(async () => {
  core?.close();
  await sb?.stop();
});

const step = (email: string): Step => ({
  kind: 'verify-email',
  key: 'verify-email:password',
  user: 'password',
  recipeId: 'emailpassword',
  email,
});

async function importUser(email: string) {
  const ids = newUserIds();
  const out = await executeStep(
    { kind: 'import-password', key: 'password', email, passwordHash: BCRYPT, hashingAlgorithm: 'bcrypt' },
    ids,
    core,
  );
  if (!out.ok) throw new Error(out.message);
  applyStepIds({ kind: 'import-password', key: 'password', email, passwordHash: BCRYPT, hashingAlgorithm: 'bcrypt' }, out.ids, ids);
  return ids;
}

describe('verify-email step', () => {
  it('creates, then a rerun is already present; the outcome carries no token', async () => {
    const ids = await importUser('Step@x.io');
    const first = await executeStep(step('Step@x.io'), ids, core);
    expect(first).toEqual({ ok: true, result: 'created', ids: {} });
    expect(await executeStep(step('step@x.io'), ids, core)).toEqual({ ok: true, result: 'already', ids: {} });
    const u = await core.getUserById(ids.recipe.get('password')!);
    expect(u.status === 'OK' && u.user.loginMethods[0]!.verified).toBe(true);
  });

  it('uses the external id once the user is mapped', async () => {
    const ids = await importUser('mapped-step@x.io');
    const mapStep: Step = { kind: 'map-user-id', key: 'map', user: 'password', externalUserId: 'ext-step' };
    const mapped = await executeStep(mapStep, ids, core);
    if (!mapped.ok) throw new Error(mapped.message);
    applyStepIds(mapStep, mapped.ids, ids);
    expect((await executeStep(step('mapped-step@x.io'), ids, core)).ok).toBe(true);
    expect(await core.isEmailVerified('ext-step', 'mapped-step@x.io')).toEqual({ status: 'OK', isVerified: true });
  });

  it('a consume whose answer is lost: the retry meets a spent token, the core says verified, the step is done', async () => {
    const ids = await importUser('lost@x.io');
    let proxy: FaultProxy | undefined;
    let viaProxy: CoreClient | undefined;
    try {
      // Requests through the proxy: 0 create token, 1 consume (performed, answer dropped), 2 its retry, 3 the check.
      proxy = await startFaultProxy({ target: sb.url, sequence: [null, 'reset-after-forward', null, null] });
      viaProxy = createCoreClient({ url: proxy.url, retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 5 } });
      const out = await executeStep(step('lost@x.io'), ids, viaProxy);
      expect(out).toEqual({ ok: true, result: 'created', ids: {} });
      expect(proxy.stats.resetAfterForward).toEqual([expect.stringContaining('/recipe/user/email/verify')]);
      expect(proxy.stats.requests).toBe(4);
    } finally {
      viaProxy?.close();
      await proxy?.stop();
    }
  });
});
