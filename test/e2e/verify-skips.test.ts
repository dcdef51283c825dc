// Issue 23 item 8: `verify` exits 0 when the only users not found are those the run left out on purpose (invalid
// records), says so, and names the skipped users as such; counts carry thousands separators.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { writeNdjson } from '../support/users.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
const dir = mkdtempSync(join(tmpdir(), 'am-verify-skips-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('verify after a run that skipped users', () => {
  it('exits 0 when the only users not there are the skipped ones, and exits 1 once one is missing', async () => {
    writeNdjson(join(dir, 'users.ndjson'), [
      { id: 'v1', email: 'v1@example.test', password: { hash: BCRYPT } },
      { id: 'v2', email: 'v2@example.test', password: { hash: BCRYPT } },
      { id: 'v3', email: 'not an email', password: { hash: BCRYPT } },
    ]);
    const target = ['--sandbox', '--store', join(dir, 'store.json')];
    const run = await cli(['run', 'users.ndjson', ...target], dir);
    expect(run.exitCode, run.stderr).toBe(1);
    const verify = await cli(['verify', 'users.ndjson', ...target], dir);
    expect(verify.exitCode, verify.stderr).toBe(0);
    expect(verify.stderr).toContain('ok 2, missing 0, mismatch 0, skipped 1 (left out by the run: not a failure)');

    // A user that is not there and that no run left out is a failure.
    writeNdjson(join(dir, 'more.ndjson'), [
      { id: 'v1', email: 'v1@example.test', password: { hash: BCRYPT } },
      { id: 'v9', email: 'v9@example.test', password: { hash: BCRYPT } },
    ]);
    const missing = await cli(['verify', 'more.ndjson', ...target], dir);
    expect(missing.exitCode, missing.stderr).toBe(1);
  });
});
