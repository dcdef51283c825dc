// The one table of file errors (src/files/errors.ts) and the private files' error naming (src/files/private.ts).
// The errors themselves are made for real in test/e2e/file-errors.test.ts; here, the mapping and a real handle.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors.js';
import { asFileError, fileErrorMessage, isFileError } from '../../src/files/errors.js';
import { openPrivate } from '../../src/files/private.js';

const dir = mkdtempSync(join(tmpdir(), 'am-file-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const errno = (code: string, path?: string): NodeJS.ErrnoException =>
  Object.assign(new Error(`${code}: boom`), { code, ...(path ? { path } : {}) });

describe('file errors: one line naming the path and the fix', () => {
  it('each kind names the path, the code and what to do; other errors are not file errors', () => {
    for (const [code, fix] of [
      ['EACCES', /let the user running auth-migrate write to \/data\/run/],
      ['EFBIG', /ulimit -f/],
      ['ENOSPC', /free space on the disk holding \/data\/run/],
      ['EDQUOT', /quota/],
      ['EROFS', /writable disk/],
    ] as const) {
      const err = errno(code, '/data/run/journal.ndjson');
      expect(isFileError(err)).toBe(true);
      const line = fileErrorMessage(err);
      expect(line).toMatch(/^cannot write \/data\/run\/journal\.ndjson: /);
      expect(line).toContain(`(${code})`);
      expect(line).toMatch(fix);
      expect(line).not.toContain('\n');
    }
    expect(isFileError(errno('ECONNREFUSED'))).toBe(false);
    expect(isFileError(new Error('plain'))).toBe(false);
    const wrapped = asFileError(errno('ENOSPC'), '/given/path');
    expect(wrapped).toBeInstanceOf(UserError);
    expect((wrapped as UserError).exitCode).toBe(2);
    expect((wrapped as UserError).message).toContain('cannot write /given/path');
  });

  it("a private file's handle names its path in the error of a failing call (the kernel names none)", async () => {
    const path = join(dir, 'closed.ndjson');
    const fh = await openPrivate(path, 'w');
    await fh.close();
    // A call on a closed handle fails with an errno error; the handle adds the file's path.
    const err = (await fh.write('x').catch((e: unknown) => e)) as NodeJS.ErrnoException;
    expect(err.code).toBeTypeOf('string');
    expect(err.path).toBe(path);
  });

  it('opening a file in a folder that is a file: ENOTDIR, one line naming the path', async () => {
    const err = await openPrivate(join(dir, 'closed.ndjson', 'x.ndjson'), 'w').catch((e: unknown) => e);
    expect(isFileError(err)).toBe(true);
    expect(fileErrorMessage(err as NodeJS.ErrnoException)).toContain(`cannot write ${join(dir, 'closed.ndjson', 'x.ndjson')}`);
  });
});
