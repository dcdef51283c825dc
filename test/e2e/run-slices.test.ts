// --skip, --limit and --only (issue 13): try a first slice before the rest; the same journal then carries on.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { allUsers, cli, client, summaryOf } from '../support/cli.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
let dir: string;
let sandbox: RunningSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-slice-'));
  writeFileSync(
    join(dir, 'users.ndjson'),
    Array.from({ length: 10 }, (_, i) => JSON.stringify({ id: `q${i}`, email: `q${i}@example.test`, password: { hash: BCRYPT } })).join(
      '\n',
    ) + '\n',
  );
  sandbox = await startSandbox({ store: join(dir, 'store.json') });
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const emails = async () => (await allUsers(client(sandbox.url))).flatMap((u) => u.emails).sort();

describe('slices', () => {
  it('--limit 3 imports the first three; --skip 3 --limit 2 the next two; --only the ids named; then everything', async () => {
    const run = (extra: string[]) =>
      cli(['run', 'users.ndjson', '--core', sandbox.url, '--yes', '--journal', 'j.ndjson', '--json', ...extra], dir);
    expect(summaryOf((await run(['--limit', '3'])).stdout)).toMatchObject({ total: 3, imported: 3 });
    expect(await emails()).toEqual(['q0@example.test', 'q1@example.test', 'q2@example.test']);
    expect(summaryOf((await run(['--skip', '3', '--limit', '2'])).stdout)).toMatchObject({ total: 2, imported: 2 });
    expect(summaryOf((await run(['--only', 'q9,q7'])).stdout)).toMatchObject({ imported: 2 });
    expect(await emails()).toEqual(['q0', 'q1', 'q2', 'q3', 'q4', 'q7', 'q9'].map((q) => `${q}@example.test`));
    const all = summaryOf((await run([])).stdout);
    expect(all).toMatchObject({ total: 10, imported: 3, alreadyPresent: 7, resumed: 7 });
    const v = await cli(['verify', 'users.ndjson', '--core', sandbox.url, '--only', 'q5', '--json'], dir);
    expect(summaryOf(v.stdout)).toMatchObject({ total: 1, ok: 1 });
    expect((await run(['--limit', 'x'])).stderr).toContain('--limit must be a whole number');
  });
});

describe('dry run', () => {
  it('lists the first ten users and totals per step kind; --steps lists every user', async () => {
    const many = Array.from({ length: 25 }, (_, i) =>
      JSON.stringify({ id: `d${i}`, email: `d${i}@example.test`, password: { hash: BCRYPT } }),
    );
    writeFileSync(join(dir, 'many.ndjson'), many.join('\n') + '\n');
    const short = await cli(['run', 'many.ndjson', '--dry-run'], dir);
    expect(short.exitCode, short.stderr).toBe(0);
    expect(short.stdout.match(/^user d\d+:/gm)).toHaveLength(10);
    expect(short.stdout).toContain('... and 15 more users (--steps lists every one)');
    expect(short.stdout).toMatch(/^ {2}import-password: 25$/m);
    expect(short.stdout).toContain('dry run: 25 users to migrate in 50 calls (25 steps)');
    const full = await cli(['run', 'many.ndjson', '--dry-run', '--steps'], dir);
    expect(full.stdout.match(/^user d\d+:/gm)).toHaveLength(25);
  });
});
