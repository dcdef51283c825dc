// The wizard walks the second pass of a cutover (issue 22): a profile that ran into its core before is offered a
// sync on the plan screen, which shows the delta per kind with the first users of each (ids, never a hash), the
// changes planned, and --remove-missing as `m`; the run screen runs the sync operation (the same as `run --sync`)
// and the results screen says what it changed; verify then finds the core as the newer export; a second sync of
// the same export makes no change and sends nothing. At 80x24 and 60x16 every frame fits the terminal.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterEach, describe, expect, it } from 'vitest';
import { emptyProfile, saveProfile } from '../../src/profiles/index.js';
import { createRealServices } from '../../src/ui/services/real.js';
import { createCoreClient } from '../../src/core-client/index.js';
import { keysToPreview, renderWizard, trackSandboxes } from './harness.js';
import type { WizardServices } from '../../src/ui/services/types.js';

let dir: string;
let sandboxes: ReturnType<typeof trackSandboxes> | undefined;
afterEach(async () => {
  await sandboxes?.stopAll();
  rmSync(dir, { recursive: true, force: true });
});

const hashes = { old: bcrypt.hashSync('old-password', 4), now: bcrypt.hashSync('new-password', 4) };
const user = (id: string, email = `${id}@example.com`, hash = hashes.old) => JSON.stringify({ id, email, password: { hash } });

/** From the profile to the plan screen (the profile names the sources and the sandbox store). */
async function toPlan(w: ReturnType<typeof renderWizard>, users: number) {
  await keysToPreview(w);
  await w.until(`records ${users.toLocaleString('en-US')} · valid ${users.toLocaleString('en-US')}`);
  await w.press('c');
  await w.until('5/8 target');
  await w.press('down', 'down', 'enter');
  await w.until('preflight passed', 30_000);
  await w.press('c');
  await w.until('6/8 plan');
}

/** Colour codes (ink-testing-library keeps them), left out when measuring a line. */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** A frame's text with its wrapping undone (lines are wrapped at the terminal's width). */
const flat = (frame: string) => frame.replace(/\s+/g, ' ');

/** Every frame drawn fits the terminal: no line longer than its width, no more lines than its rows. */
function fits(frames: string[], columns: number, rows: number) {
  for (const f of frames) {
    const lines = f.split('\n');
    expect(lines.length, f).toBeLessThanOrEqual(rows);
    for (const l of lines) expect([...l.replace(ANSI, '')].length, l).toBeLessThanOrEqual(columns);
  }
}

/** A profile `cut` whose first run (a, b, c, d) is done in the wizard; the newer export is export-2.ndjson. */
async function firstPass() {
  dir = mkdtempSync(join(tmpdir(), 'am-ui-sync-'));
  const env = { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') };
  const store = join(dir, 'store.json');
  const profile = async (file: string) =>
    saveProfile(
      { ...emptyProfile('cut'), sources: [{ path: join(dir, file), format: 'canonical' }], target: { kind: 'sandbox', store } },
      {},
      env,
    );
  writeFileSync(join(dir, 'export-1.ndjson'), ['a', 'b', 'c', 'd'].map((id) => user(id)).join('\n') + '\n');
  await profile('export-1.ndjson');
  sandboxes = trackSandboxes(createRealServices({ env, cwd: dir, out: 'runs' }));
  const tracked = sandboxes.services;
  const at = { url: '' };
  const services = {
    ...tracked,
    startSandbox: async (o: Parameters<typeof tracked.startSandbox>[0]) => {
      const s = await tracked.startSandbox(o);
      at.url = s.url;
      return s;
    },
  };
  // The first pass: a plain run; no sync is offered (the profile never ran into this core).
  const w = renderWizard(services, 'cut', { columns: 100, rows: 40 });
  await toPlan(w, 4);
  await w.until('4 users to migrate');
  expect(w.frame()).not.toContain('ran into this core before');
  await w.press('r');
  await w.until(/8\/8 results: finished[\s\S]*imported 4/, 30_000);
  await w.press('q');
  w.unmount();
  await sandboxes.stopAll();
  // The old system moved on: b changed its password, c its email, d is gone, e signed up. Its export is a file of
  // its own (the source screen's change, saved in the profile), so the previous one stays for a rollback.
  writeFileSync(
    join(dir, 'export-2.ndjson'),
    [user('a'), user('b', undefined, hashes.now), user('c', 'c2@example.com'), user('e')].join('\n') + '\n',
  );
  await profile('export-2.ndjson');
  return { services, at };
}

/** The sync of export-2 on the plan screen: the offer, the delta, `m`, then `r` to the results. */
async function syncOnce(services: WizardServices) {
  const w = renderWizard(services, 'cut', { columns: 100, rows: 40 });
  await toPlan(w, 4);
  await w.until('this profile ran into this core before (it finished): s syncs instead');
  await w.press('s');
  const plan = flat(await w.until('changes planned:', 30_000));
  expect(plan).toMatch(/1 new, 2 changed, 1 gone from the export/);
  expect(plan).toContain('new users: 1: e');
  // Each user named with its email too (issue 33 point 8), the changed ones and the new one.
  expect(plan).toMatch(/new users: 1: e \(\S+@\S+\)/);
  expect(plan).toMatch(/changed password: 1 users: b \(\S+@\S+\)/);
  expect(plan).toMatch(/changed password: 1 users: b/);
  expect(plan).toMatch(/changed email: 1 users: c/);
  expect(plan).toMatch(/gone from the export: 1 users, listed, left in the core/);
  expect(plan).toContain('The old system is authoritative until cutover');
  for (const h of Object.values(hashes)) expect(plan).not.toContain(h.slice(7)); // no hash, not even in part
  await w.press('m');
  await w.until(/gone from the export: 1 users, removed if the migration\s+created them/);
  const removed = flat(await w.until(/ removed: 1/));
  expect(removed).toMatch(/password: 1/);
  await w.press('r');
  const results = flat(await w.until(/8\/8 results: finished[\s\S]*sync: changes made/, 30_000));
  expect(results).toMatch(/ new: 1/);
  expect(results).toMatch(/ password: 1/);
  expect(results).toMatch(/ email: 1/);
  expect(results).toMatch(/ removed: 1/);
  expect(results).toMatch(/run folder \S+\/runs\/cut-sync-\d{4}-/);
  return w;
}

describe('the wizard syncs a profile that ran before', () => {
  it('offers the sync, shows the delta, makes exactly the changes; u undoes the sync, not the first run', async () => {
    const { services, at } = await firstPass();
    const w = await syncOnce(services);
    await w.press('v');
    await w.until('verify: 4/4 users ok', 30_000);
    const core = createCoreClient({ url: at.url });
    try {
      expect((await core.signIn('b@example.com', 'new-password')).status).toBe('OK');
      expect((await core.signIn('b@example.com', 'old-password')).status).toBe('WRONG_CREDENTIALS_ERROR');
      expect((await core.listUsersByAccountInfo({ email: 'd@example.com' })).users).toEqual([]);
      expect((await core.listUsersByAccountInfo({ email: 'c2@example.com' })).users).toHaveLength(1);
      // u: the sync's rollback (its own journal): c's email and d come back from export-1, e goes; b's hash stays.
      await w.press('u');
      await w.until('y undoes it', 30_000);
      await w.press('y');
      await w.until(/undone: \d+ users, 0 failed/, 30_000);
      expect((await core.listUsersByAccountInfo({ email: 'c@example.com' })).users).toHaveLength(1);
      expect((await core.listUsersByAccountInfo({ email: 'c2@example.com' })).users).toEqual([]);
      expect((await core.listUsersByAccountInfo({ email: 'd@example.com' })).users).toHaveLength(1);
      expect((await core.listUsersByAccountInfo({ email: 'e@example.com' })).users).toEqual([]);
      expect((await core.listUsersByAccountInfo({ email: 'a@example.com' })).users).toHaveLength(1); // the first run's
      expect((await core.signIn('b@example.com', 'new-password')).status).toBe('OK'); // listed: a hash is not given back
    } finally {
      core.close();
    }
    await w.press('q');
    w.unmount();
  }, 180_000);

  it('a second sync of the same export makes no change, sends nothing and has nothing to undo; frames fit', async () => {
    const { services } = await firstPass();
    let w = await syncOnce(services);
    await w.press('q');
    w.unmount();
    await sandboxes!.stopAll();

    // The same export again, at 80x24: no change to make; the sync sends nothing and says so.
    w = renderWizard(services, 'cut', { columns: 80, rows: 24 });
    await toPlan(w, 4);
    await w.until('s syncs instead');
    await w.press('s');
    await w.until('no change to make', 30_000);
    await w.press('r');
    await w.until(/nothing changed since the earlier run: no request was\s+sent/, 30_000);
    await w.press('u'); // nothing of this sync to undo: the first run is not offered instead
    await w.until(/the sync wrote nothing \(no journal\): there is nothing of it to undo/);
    fits(w.frames, 80, 24);
    await w.press('q');
    w.unmount();
    await sandboxes!.stopAll();

    // 60x16: the plan screen offers the sync in its footer; with the sync chosen, the counts fit.
    w = renderWizard(services, 'cut', { columns: 60, rows: 16 });
    await toPlan(w, 4);
    await w.until('s sync instead');
    const from = w.frames.length;
    await w.press('s');
    const small = flat(await w.until('no change to make', 30_000));
    expect(small).toMatch(/compared with the earlier run: 4 records, 4 unchanged/);
    fits(w.frames.slice(from), 60, 16);
    await w.press('q');
    w.unmount();
  }, 180_000);
});
