// The wizard's run folder: named for the profile and the time, under --out DIR when given (createRealServices'
// `out`), listed on the results screen with every file in it; a second run of the same migration carries on there.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterEach, describe, expect, it } from 'vitest';
import { emptyProfile, saveProfile } from '../../src/profiles/index.js';
import { createRealServices } from '../../src/ui/services/real.js';
import { keysToPreview, renderWizard, trackSandboxes } from './harness.js';

let dir: string;
let sandboxes: ReturnType<typeof trackSandboxes> | undefined;
afterEach(async () => {
  await sandboxes?.stopAll();
  rmSync(dir, { recursive: true, force: true });
});

async function runOnce(env: NodeJS.ProcessEnv) {
  sandboxes = trackSandboxes(createRealServices({ env, cwd: dir, out: 'runs' }));
  const w = renderWizard(sandboxes.services, 'out', { columns: 80, rows: 24 });
  await keysToPreview(w);
  await w.until('records 2 · valid 2');
  await w.press('c');
  await w.until('5/8 target');
  await w.press('down', 'down', 'enter');
  await w.until('preflight passed', 30_000);
  await w.press('c');
  await w.until('2 users to migrate');
  await w.press('r');
  const results = await w.until('8/8 results: finished', 30_000);
  await w.press('q');
  w.unmount();
  await sandboxes.stopAll();
  return results;
}

describe('the wizard run folder', () => {
  it('goes under --out DIR, is listed with its files, and the same migration run again carries on in it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'am-ui-out-'));
    const env = { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') };
    const hash = bcrypt.hashSync('x', 4);
    const file = join(dir, 'two.ndjson');
    writeFileSync(file, ['a', 'b'].map((id) => JSON.stringify({ id, email: `${id}@example.com`, password: { hash } })).join('\n') + '\n');
    const store = join(dir, 'store.json');
    await saveProfile(
      { ...emptyProfile('out'), sources: [{ path: file, format: 'canonical' }], target: { kind: 'sandbox', store } },
      {},
      env,
    );

    const first = await runOnce(env);
    const made = readdirSync(join(dir, 'runs'));
    expect(made).toHaveLength(1);
    expect(made[0]).toMatch(/^out-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ$/);
    const folder = join(dir, 'runs', made[0]!);
    expect(first).toContain(`run folder ${folder}`);
    expect(first).toMatch(/imported 2/);
    expect(readdirSync(folder).sort()).toEqual(expect.arrayContaining(['failures.ndjson', 'journal.ndjson', 'report.ndjson']));
    // Nothing in the current folder but what was there.
    expect(readdirSync(dir).filter((f) => f.endsWith('.ndjson') && f !== 'two.ndjson')).toEqual([]);

    const second = await runOnce(env);
    expect(second).toContain(`run folder ${folder}`);
    expect(second).toMatch(/imported 0 · already present 2/);
    expect(readdirSync(join(dir, 'runs'))).toHaveLength(1);
  });
});
