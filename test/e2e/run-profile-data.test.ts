// Metadata and roles (issue 10, canonical records): carried into the core's user metadata and roles under the id
// every later call uses (the external id when mapped); a rerun changes nothing and never overwrites a key a user
// changed since; verify reports a metadata or role difference made by hand.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { cli, client, summaryOf } from '../support/cli.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
let dir: string;
let sandbox: RunningSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-profile-'));
  const users = [
    {
      id: 'm1',
      email: 'm1@example.test',
      externalUserId: 'ext-m1',
      password: { hash: BCRYPT },
      metadata: { displayName: 'Ada', plan: { tier: 'gold' } },
      roles: ['admin', 'editor'],
    },
    { id: 'm2', email: 'm2@example.test', password: { hash: BCRYPT }, metadata: { displayName: 'Bob' }, roles: ['editor'] },
  ];
  writeFileSync(join(dir, 'users.ndjson'), users.map((u) => JSON.stringify(u)).join('\n') + '\n');
  writeFileSync(
    join(dir, 'bad.ndjson'),
    JSON.stringify({ id: 'b', email: 'b@example.test', password: { hash: BCRYPT }, metadata: ['x'], roles: [''] }) + '\n',
  );
  sandbox = await startSandbox({ store: join(dir, 'store.json') });
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('metadata and roles', () => {
  it('reach the core under the external id; a rerun changes nothing; verify finds hand-made differences', async () => {
    const r = await cli(['run', 'users.ndjson', '--core', sandbox.url, '--yes', '--journal', 'j.ndjson', '--json'], dir);
    expect(r.exitCode, r.stderr).toBe(0);
    const core = client(sandbox.url);
    expect((await core.getUserMetadata('ext-m1')).metadata).toEqual({ displayName: 'Ada', plan: { tier: 'gold' } });
    expect((await core.getUserRoles('ext-m1')).roles.sort()).toEqual(['admin', 'editor']);
    const m2 = (await core.listUsersByAccountInfo({ email: 'm2@example.test' })).users[0]!.id;
    expect((await core.getUserRoles(m2)).roles).toEqual(['editor']);
    // The user changes a key in the new system; a delta run adds nothing and keeps it.
    await core.updateUserMetadata('ext-m1', { displayName: 'Ada L.' });
    const again = await cli(['run', 'users.ndjson', '--core', sandbox.url, '--yes', '--journal', 'j2.ndjson', '--json'], dir);
    expect(summaryOf(again.stdout)).toMatchObject({ imported: 0, alreadyPresent: 2 });
    expect((await core.getUserMetadata('ext-m1')).metadata.displayName).toBe('Ada L.');
    // verify reports the changed key and a role taken away by hand (values are not printed).
    await core.raw({ method: 'POST', path: '/recipe/user/metadata/remove', scope: 'app', body: { userId: m2 } });
    const v = await cli(['verify', 'users.ndjson', '--core', sandbox.url, '--json'], dir);
    expect(v.exitCode).toBe(1);
    const out = JSON.parse(v.stdout) as { problems: Array<{ id: string; differences: string[] }> };
    expect(out.problems.find((p) => p.id === 'm1')?.differences).toContain(
      'metadata key "displayName" differs from the source (changed since, or another value)',
    );
    expect(out.problems.find((p) => p.id === 'm2')?.differences).toContain('metadata key "displayName" is missing');
    expect(v.stdout).not.toContain('Ada L.');
    core.close();
  });

  it('metadata that is not an object and an empty role name are errors naming the record and field', async () => {
    const v = await cli(['validate', 'bad.ndjson'], dir);
    expect(v.exitCode).toBe(1);
    expect(v.stdout).toMatch(/\(id b\) metadata: metadata must be an object, not an array/);
    expect(v.stdout).toMatch(/\(id b\) roles\[0\]: a role is a name/);
  });
});
