// The mappings a `--via steps` run makes on a core it reads in bulk are read back by its listings (issue 35's "no
// request a bare script would not send", held to issue 31's "a write counts when it is read back"): a mapping counts
// only when a GET /users listing that began after the core's OK shows the login under the external id (the
// reference's UsersAPI answers mapped ids: UserIdMapping.populateExternalUserIdForUsers); a listing that ends without
// it answers false, and the run then reads it back itself and sends it again when the OK applied nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCoreClient } from '../../../../src/core-client/client.js';
import { methodKey } from '../../../../src/engine/strategies/bulk/knowledge.js';
import { FreshKnowledge } from '../../../../src/engine/strategies/steps/knowledge.js';
import { MappingReadBacks } from '../../../../src/engine/strategies/steps/mapping-readback.js';
import type { CanonicalUser } from '../../../../src/records/types.js';
import { startSandbox, type RunningSandbox } from '../../../../src/sandbox/spawn.js';
import { startBareOkProxy, type BareOkProxy } from '../../../support/bare-ok-proxy.js';
import { cli, client, journalEntries, LICENSE } from '../../../support/cli.js';
import { passwordStep as password, writeNdjson } from '../../../support/users.js';
import { BCRYPT as HASH } from '../../../support/vectors.js';

vi.setConfig({ testTimeout: 120_000 });

const noRetry = { retries: 0, baseDelayMs: 1, maxDelayMs: 1 };
const key = (email: string) => methodKey({ tenantIds: ['public'], recipeId: 'emailpassword', email });

let dir: string;
let sandbox: RunningSandbox;
let proxy: BareOkProxy | undefined;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-mapping-readback-'));
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE });
});
afterEach(async () => {
  await proxy?.stop();
  proxy = undefined;
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('mappings read back by the listings of a steps run', () => {
  it('counts a mapping only from a listing begun after the OK; false when a listing ends without it; undefined once stopped', async () => {
    const core = createCoreClient({ url: sandbox.url, retry: noRetry });
    const known = new FreshKnowledge(core, { paceAsks: 1 });
    const readBacks = new MappingReadBacks(known, 'public', 20);
    expect(await known.absent(password('a@example.test'))).toBe(true); // the first read
    const a = await core.importPasswordHash({ email: 'a@example.test', passwordHash: HASH });
    const b = await core.importPasswordHash({ email: 'b@example.test', passwordHash: HASH });
    if (a.status !== 'OK' || b.status !== 'OK') throw new Error('import failed');
    expect((await core.createUserIdMapping({ superTokensUserId: a.user.id, externalUserId: 'ext-a' })).status).toBe('OK');

    // A read under way that began before the OK does not count, though its pages show the mapping: the next one does.
    known.readAfter(known.reads);
    const readsBefore = known.reads;
    const seenA = readBacks.confirm(key('a@example.test'), 'ext-a');
    expect(await seenA).toBe(true);
    expect(known.reads).toBe(readsBefore + 1); // the read the wait started (20 ms here, 2 s in a run)
    expect(readBacks.size).toBe(0);

    // b's mapping was never made: the first listing after the ask ends without it. The login of b under a's external
    // id is not what the listing shows (a's login is): not b's mapping either.
    const seenB = readBacks.confirm(key('b@example.test'), 'ext-b');
    expect(await seenB).toBe(false);
    const seenWrong = readBacks.confirm(key('b@example.test'), 'ext-a');
    expect(await seenWrong).toBe(false);

    const stopped = readBacks.confirm(key('a@example.test'), 'ext-a');
    readBacks.stop();
    expect(await stopped).toBeUndefined();
    core.close();
  });

  it('a run whose mapping OKs applied nothing (a proxy answering bare OK): read back, sent again, every mapping in the core', async () => {
    let swallow = 4;
    proxy = await startBareOkProxy(sandbox.url, (method, path) => method === 'POST' && path === '/recipe/userid/map' && swallow-- > 0);
    const users: CanonicalUser[] = Array.from({ length: 30 }, (_, i) => ({
      id: `m${i}`,
      email: `m${i}@example.test`,
      password: { hash: HASH },
      ...(i % 2 === 0 ? { externalUserId: `ext-${i}` } : {}),
    }));
    writeNdjson(join(dir, 'users.ndjson'), users);
    const r = await cli(['run', 'users.ndjson', '--core', proxy.url, '--yes', '--via', 'steps', '--journal', 'j.ndjson', '--json'], dir);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().split('\n').at(-1)!)).toMatchObject({ total: 30, imported: 30, failed: 0 });
    expect(proxy.swallowed).toHaveLength(4);
    const direct = client(sandbox.url);
    for (const u of users.filter((x) => x.externalUserId !== undefined)) {
      const m = await direct.getUserIdMapping(u.externalUserId!, 'EXTERNAL');
      expect(m.status, u.id).toBe('OK');
    }
    const maps = journalEntries(join(dir, 'j.ndjson')).filter((e) => e.step === 'map');
    expect(maps).toHaveLength(15);
    direct.close();
  });
});
