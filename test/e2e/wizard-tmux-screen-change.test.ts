// Issue 33 item 5: keys sent while the screen is changing reach the new screen. The name of a new profile, enter
// and the keys meant for the keys screen go in ONE burst (tmux send-keys), as a fast typist or a paste sends
// them: the keys screen must get them (the licence key in its field), the profile list none of them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyProfile, listProfiles, saveProfile } from '../../src/profiles/index.js';
import { LICENSE_KEY } from '../support/fixture.js';
import { TMUX, tmuxInTempDir } from './tmux-driver.js';

const { dir, t } = tmuxInTempDir('am-change-');

describe.skipIf(!TMUX)('keys typed while the screen changes (tmux, one burst)', () => {
  for (const [columns, rows] of [
    [60, 16],
    [80, 24],
    [120, 40],
  ] as const) {
    it(`${columns}x${rows}: n + name + enter + keys for the next screen`, async () => {
      const env = { AUTH_MIGRATE_CONFIG_DIR: join(dir, `config-${columns}`) };
      // Saved profiles below "+ new profile": keys that wrongly reach the list have something to move, copy or rename;
      // a thousand of them make each read of the profiles file take a while, as a screen change can.
      const many = Array.from({ length: 1000 }, (_, i) => emptyProfile(`zz${String(i).padStart(4, '0')}`));
      mkdirSync(env.AUTH_MIGRATE_CONFIG_DIR, { recursive: true });
      writeFileSync(
        join(env.AUTH_MIGRATE_CONFIG_DIR, 'profiles.json'),
        JSON.stringify({ profiles: Object.fromEntries(many.map((p) => [p.name, p])) }),
        {
          mode: 0o600,
        },
      );
      for (const n of ['alpha', 'beta']) await saveProfile(emptyProfile(n), {}, env);
      const names = async () => (await listProfiles(env)).map((p) => p.name).filter((n) => !n.startsWith('zz'));
      await t.launch([], { cwd: dir, env, columns, rows });
      await t.until('+ new profile');
      // The licence key is typed two rows down on the keys screen; every key of it goes out before that screen exists.
      await t.sendKeys('n', 'fresh', 'Enter', 'Down', 'Down', LICENSE_KEY);
      const s = await t.until(new RegExp(`licence key\\s+•+\\s+✓ ${LICENSE_KEY.length} chars`));
      expect(s).toContain('keys · profile fresh');
      expect(s).toMatch(/api key\s+not set/);
      expect(await names()).toEqual(['alpha', 'beta', 'fresh']);

      // The same for a saved profile opened with enter: the keys after it go to its keys screen.
      await t.sendKeys('Escape');
      await t.until('+ new profile');
      await t.sendKeys('Down', 'Enter', 'Down', 'Down', LICENSE_KEY);
      const o = await t.until(new RegExp(`licence key\\s+•+\\s+✓ ${LICENSE_KEY.length} chars`));
      expect(o).toContain('keys · profile alpha');
      expect(await names()).toEqual(['alpha', 'beta', 'fresh']);
    }, 60_000);
  }
});
