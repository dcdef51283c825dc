// Issue 33 item 1: keys that arrive as one burst (tmux send-keys of a string, a paste, a fast typist) are split
// into keystrokes, each applied to the state the one before it produced. Every step here writes its keys to
// stdin as ONE string, as a terminal delivers a burst in one read.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyProfile, loadProfile, saveProfile } from '../../src/profiles/index.js';
import { createRealServices } from '../../src/ui/services/real.js';
import { CANONICAL, PASSWORDS, REPO } from '../support/fixture.js';
import { KEYS, renderWizard, waitFor } from './harness.js';

let dir: string;
let env: NodeJS.ProcessEnv;
let unmount: (() => void) | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-burst-'));
  env = { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') };
});
afterEach(() => {
  unmount?.();
  unmount = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function start(profile?: string, size = { columns: 100, rows: 30 }) {
  const w = renderWizard(createRealServices({ env, cwd: dir }), profile, size);
  unmount = w.unmount;
  return w;
}

const { up, down, left, right, enter, escape } = KEYS;

describe('a burst of keys, one read', () => {
  it('n + a name + enter creates the profile', async () => {
    const w = start();
    await w.until('+ new profile');
    w.stdin.write(`nnight${enter}`);
    await w.until('keys · profile night');
    expect((await loadProfile('night', env)).profile.name).toBe('night');
  });

  it('on the sources: a path + enter adds the file, → → moves the format twice, a hash-config path + enter is read', async () => {
    await saveProfile(emptyProfile('p'), {}, env);
    const w = start('p');
    await w.until('2/8 keys');
    w.stdin.write(`${down.repeat(8)}${enter}`);
    await w.until('3/8 source files');
    w.stdin.write(`${CANONICAL}${enter}`);
    await w.until('[canonical]');
    w.stdin.write(`${down}${right}${right}`);
    // canonical → firebase → the one after it: two moves, not one.
    const formats = createRealServices({ env, cwd: dir }).formats;
    const twice = formats[(formats.indexOf('canonical') + 2) % formats.length]!;
    await w.until(`[${twice}]`);
    w.stdin.write(`${left}${left}`);
    await w.until('[canonical]');
    w.stdin.write(`${down}${REPO}fixtures/firebase/hash-config.json${enter}`);
    await w.until('salt separator Bw== · rounds 8 · mem_cost 14 · signer key set');
  });

  it('hash parameters typed and left without enter are read, not dropped', async () => {
    await saveProfile({ ...emptyProfile('p'), sources: [{ path: CANONICAL, format: 'canonical' }] }, {}, env);
    const w = start('p');
    await w.until('2/8 keys');
    w.stdin.write(`${down.repeat(8)}${enter}`);
    await w.until('3/8 source files');
    w.stdin.write(`${down}${down}${REPO}fixtures/firebase/hash-config.json${down}`);
    await w.until('salt separator Bw== · rounds 8 · mem_cost 14 · signer key set');
  });

  it('preview: f f filters twice, / + query + enter searches, ↓ ↓ moves twice; details: s + password + enter checks it', async () => {
    await saveProfile({ ...emptyProfile('p'), sources: [{ path: CANONICAL, format: 'canonical' }] }, {}, env);
    const w = start('p');
    await w.until('2/8 keys');
    w.stdin.write(`${down.repeat(8)}${enter}`);
    await w.until('3/8 source files');
    w.stdin.write(`${down.repeat(4)}${enter}`);
    await w.until(/records 6 · valid 6/);
    w.stdin.write('ff');
    await w.until('f filter (warnings)');
    w.stdin.write('f');
    await w.until('f filter (all)');
    w.stdin.write(`${down}${down}`);
    const moved = await w.until(/^› c-cy\s/m);
    expect(moved).toMatch(/^› c-cy\s/m);
    w.stdin.write(`/bob@${enter}`);
    await w.until('"bob@": 1 found in every record');
    w.stdin.write(`${escape}${enter}`);
    await w.until('id c-ada');
    // A right password, then a wrong one: the wrong one must never leave "match" on the screen.
    w.stdin.write(`s${PASSWORDS.ada}${enter}`);
    await w.until('spot-check: match');
    const before = w.frames.length;
    w.stdin.write(`snot-adas-secret${enter}`);
    const after = await w.until(/spot-check: (?!match)/);
    expect(after).not.toContain('spot-check: match');
    // From the `s` on, no frame showed the earlier match next to the new try.
    expect(w.frames.slice(before).some((f) => f.includes('spot-check: match'))).toBe(false);
    const leak = w.frames.find((f) => f.includes('not-adas-secret'));
    expect(leak).toBeUndefined();
    w.stdin.write(`${escape}${up}${up}`);
    await w.until(/^› c-ada\s/m);
  });

  it('a typed value is kept in order when a burst mixes text, arrows and backspaces', async () => {
    const w = start();
    await w.until('+ new profile');
    w.stdin.write(`nnighx\u007ft${left}${left}${right}${right}${enter}`);
    await w.until('keys · profile night');
    await waitFor(async () => (await loadProfile('night', env)).profile.name === 'night', 'the profile saved');
  });
});

describe('splitKeystrokes', () => {
  it('splits text into keys, reads a line feed or CR LF as one enter, and escape + key as two keys', async () => {
    const { splitKeystrokes } = await import('../../src/ui/keys/split.js');
    expect(splitKeystrokes('sab\r')).toEqual(['s', 'a', 'b', '\r']);
    expect(splitKeystrokes('a\r\nb\n')).toEqual(['a', '\r', 'b', '\r']);
    expect(splitKeystrokes('\u001b\r')).toEqual(['\u001b', '\r']);
    expect(splitKeystrokes('\u001bq')).toEqual(['\u001b', 'q']);
    expect(splitKeystrokes('\u001b\u001b')).toEqual(['\u001b', '\u001b']);
    expect(splitKeystrokes('\u001b[D')).toEqual(['\u001b[D']);
    expect(splitKeystrokes('\u001b\u001b[A')).toEqual(['\u001b', '\u001b[A']);
    expect(splitKeystrokes('é✓')).toEqual(['é', '✓']);
  });
});
