// Issue 33 point 8, the headless sync's words: a removal-only sync does not say "imported 1" (it says what it
// wrote, and the change per kind); the confirmation does not repeat the delta and the authority paragraph the
// sync printed just before it (each is said once).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTHORITY } from '../../src/operations/sync.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { allUsers, cli, client, LICENSE } from '../support/cli.js';
import { writeNdjson } from '../support/users.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
let dir: string;
let core: RunningSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-sync-lines-'));
  const users = Array.from({ length: 3 }, (_, i) => ({ id: `r${i}`, email: `r${i}@example.test`, password: { hash: BCRYPT } }));
  writeNdjson(join(dir, 'v1.ndjson'), users);
  writeNdjson(join(dir, 'v2.ndjson'), users.slice(0, 2));
  core = await startSandbox({ port: 0, store: join(dir, 'core.json'), licenseKey: LICENSE });
});
afterAll(async () => {
  await core?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const count = (text: string, part: string) => text.split(part).length - 1;

describe('a removal-only sync, headless', () => {
  it('says what it wrote, not "imported 1"; the confirmation repeats neither paragraph', async () => {
    const first = await cli(['run', 'v1.ndjson', '--core', core.url, '--yes'], dir);
    expect(first.exitCode, first.stderr).toBe(0);
    const sync = await cli(['run', 'v2.ndjson', '--sync', '--remove-missing', '--core', core.url, '--yes'], dir);
    expect(sync.exitCode, sync.stderr).toBe(0);
    expect((await allUsers(client(core.url))).length).toBe(2);
    expect(sync.stderr).not.toMatch(/imported 1\b/);
    expect(sync.stderr).toMatch(/finished: 1 user written \(added, changed or removed\)/);
    expect(sync.stderr).toMatch(/^ {2}removed: 1$/m);
    // Each said once: the delta and the authority line (printed before the question), then the question.
    expect(count(sync.stderr, 'compared with the earlier run:')).toBe(1);
    expect(count(sync.stderr, AUTHORITY)).toBe(1);
    expect(sync.stderr).toContain(`about to write into the core ${core.url}`);
    expect(sync.stderr).toContain('writes the changes listed above (0 new, 0 changed, up to 1 gone removed users');
  });
});
