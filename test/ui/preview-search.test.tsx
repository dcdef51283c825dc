// Issue 23 item 7: the preview of a big export keeps its first 5,000 records in the table; `/` searches every record
// of the files (id, email, phone, external id) and shows what it found, past the rows kept, details included.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyProfile, saveProfile } from '../../src/profiles/index.js';
import { createRealServices } from '../../src/ui/services/real.js';
import { PREVIEW_ROW_LIMIT } from '../../src/ui/state/reducer.js';
import { keysToPreview, renderWizard } from './harness.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
const USERS = PREVIEW_ROW_LIMIT + 200;
const dir = mkdtempSync(join(tmpdir(), 'am-search-'));
const env = { AUTH_MIGRATE_CONFIG_DIR: join(dir, 'config') };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the preview of a big export', () => {
  it('says it keeps the first records, and / finds a record past them', async () => {
    const file = join(dir, 'big.ndjson');
    writeFileSync(
      file,
      Array.from({ length: USERS }, (_, i) => JSON.stringify({ id: `b${i}`, email: `user${i}@big.test`, password: { hash: BCRYPT } })).join(
        '\n',
      ) + '\n',
    );
    await saveProfile({ ...emptyProfile('big'), sources: [{ path: file, format: 'canonical' }] }, {}, env);
    const w = renderWizard(createRealServices({ env, cwd: dir }), 'big', { columns: 100, rows: 30 });
    try {
      await keysToPreview(w);
      await w.until(`records ${USERS.toLocaleString('en-US')}`, 60_000);
      await w.until(`the table keeps the first 5,000 of ${USERS.toLocaleString('en-US')} records; / searches them all`);
      await w.press('/');
      await w.until('enter searches every record');
      w.stdin.write('user5150@');
      await w.until('user5150@');
      await w.press('enter');
      const found = await w.until('"user5150@": 1 found in every record', 60_000);
      expect(found).toMatch(/^› b5150\s+user5150@big\.test/m);
      expect(found).not.toMatch(/b0\s+user0@/);
      await w.press('enter');
      await w.until('id b5150');
      await w.press('escape');
      await w.until('esc all records');
      await w.press('escape');
      const all = await w.until(/^› b0\s/m);
      expect(all).toContain('c continue');
    } finally {
      w.unmount();
    }
  }, 120_000);
});
