// Issue 33 point 8: `run` started inside a git work tree says "the journal is inside the git work tree" only when the
// journal is: a --journal outside it (under /tmp) gets no such note; one inside it does; a run folder there ignores
// itself. (A folder holding a `.git` is what makes a work tree, as git itself finds it.)
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, LICENSE } from '../support/cli.js';
import { writeNdjson } from '../support/users.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
let tree: string;
let outside: string;
beforeAll(() => {
  tree = mkdtempSync(join(tmpdir(), 'am-git-tree-'));
  mkdirSync(join(tree, '.git'));
  outside = mkdtempSync(join(tmpdir(), 'am-git-outside-'));
  writeNdjson(join(tree, 'users.ndjson'), [{ id: 'g1', email: 'g1@example.test', password: { hash: BCRYPT } }]);
});
afterAll(() => {
  rmSync(tree, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const run = (journal: string) =>
  cli(
    ['run', 'users.ndjson', '--sandbox', '--store', join(outside, `${Date.now()}.json`), '--license-key', LICENSE, '--journal', journal],
    tree,
  );

describe('the git work tree note', () => {
  it('is not printed for a journal outside the work tree the run started in', async () => {
    const r = await run(join(outside, 'j.ndjson'));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`journal ${join(outside, 'j.ndjson')}`);
    expect(r.stderr).not.toContain('git work tree');
  });

  it('is printed for a journal inside it', async () => {
    const r = await run('inside.ndjson');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`note: the journal is inside the git work tree ${tree}`);
  });
});
