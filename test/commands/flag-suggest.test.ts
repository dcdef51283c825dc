// Issue 33 point 8: a mistyped flag gets "did you mean --xyz?" from every command that parses flags (the built CLI).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nearest } from '../../src/commands/flag-suggest.js';
import { cli } from '../support/cli.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'am-flags-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a mistyped flag', () => {
  it.each([
    [['run', 'users.ndjson', '--yse'], '--yse', '--yes', 'run'],
    [['run', 'users.ndjson', '--hash-confg', 'h.txt'], '--hash-confg', '--hash-config', 'run'],
    [['rollback', '--jounral', 'j.ndjson'], '--jounral', '--journal', 'rollback'],
    [['verify', 'users.ndjson', '--credentails', 'c.csv'], '--credentails', '--credentials', 'verify'],
    [['validate', 'users.ndjson', '--jsn'], '--jsn', '--json', 'validate'],
    [['signin-status', '--jornal', 'j.ndjson'], '--jornal', '--journal', 'signin-status'],
  ])('%j: did you mean', async (args, typed, meant, command) => {
    const r = await cli(args, dir);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toBe(`auth-migrate: unknown option ${typed}: did you mean ${meant}? See \`auth-migrate ${command} --help\`.`);
  });

  it('far from every flag: no guess', async () => {
    const r = await cli(['run', 'users.ndjson', '--zzzzzz'], dir);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toBe('auth-migrate: unknown option --zzzzzz. See `auth-migrate run --help`.');
    expect(nearest('sandbx', ['sandbox', 'store'])).toBe('sandbox');
    expect(nearest('x', ['yes', 'json'])).toBeUndefined();
  });
});
