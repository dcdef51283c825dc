// validateSources over real files (through the readers) and the runner's second pass.
import { appendFileSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { originKey, streamValidatedRecords, validateSources, type ValidatedRecord } from '../../src/records/validate.js';
import { BCRYPT } from '../support/vectors.js';

let dir: string;
let file: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'validate-sources-'));
  file = join(dir, 'users.ndjson');
  const lines = [
    JSON.stringify({ id: 'a', email: 'a@example.com', password: { hash: BCRYPT } }),
    'not json at all',
    JSON.stringify({ id: 'b', email: 'b@example.com', password: { hash: BCRYPT }, otpFactors: { email: 'c@example.com' } }),
    JSON.stringify({ id: 'a', email: 'x@example.com', password: { hash: BCRYPT } }),
    JSON.stringify({ id: 'c', email: 'c@example.com', thirdParty: [{ providerId: 'google', userId: 'g' }] }),
    JSON.stringify({ id: 'd', email: 'd@example.com', password: { hash: BCRYPT } }),
  ];
  writeFileSync(file, lines.join('\n') + '\n');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('validateSources', () => {
  it('counts records, reader problems and late problems, and marks the earlier records invalid', async () => {
    const seen: ValidatedRecord[] = [];
    const report = await validateSources([file], { onRecord: (r) => seen.push(r) });
    expect(seen.map((r) => r.record.id)).toEqual(['a', 'b', 'a', 'c', 'd']);
    // Line 4 (duplicate id) at once; line 1 (its twin) and line 3 (its factor email is user c's) late.
    expect(report.summary).toMatchObject({ records: 5, valid: 2, invalid: 3, errors: 4, warnings: 0 });
    expect(report.problems.map((p) => [p.origin.line, p.rule])).toEqual([
      [2, expect.any(String)],
      [4, 'id.duplicate'],
      [1, 'id.duplicate'],
      [3, 'otp.conflict'],
    ]);
    expect(report.late.keys().sort()).toEqual([originKey({ file, line: 1 }), originKey({ file, line: 3 })].sort());
  });

  it('caps the problems kept but not the counts', async () => {
    const report = await validateSources([file], { maxProblems: 1 });
    expect(report.problems).toHaveLength(1);
    expect(report.problemsOmitted).toBe(3);
    expect(report.summary.errors).toBe(4);
  });

  it('the second pass yields every record, normalised, with the late problems attached', async () => {
    const report = await validateSources([file], {});
    const out: ValidatedRecord[] = [];
    for await (const r of streamValidatedRecords([file], {}, report)) out.push(r);
    expect(out.map((r) => [r.origin.line, r.record.id, r.valid])).toEqual([
      [1, 'a', false],
      [3, 'b', false],
      [4, 'a', false],
      [5, 'c', true],
      [6, 'd', true],
    ]);
    expect(out[0]!.problems.map((p) => p.rule)).toEqual(['id.duplicate']);
    expect(out[1]!.problems.map((p) => p.rule)).toEqual(['otp.conflict']);
    expect(out[3]!.record.thirdParty).toEqual([{ providerId: 'google', userId: 'g', email: 'c@example.com' }]);
  });

  it('the second pass replays the first pass verdicts on unchanged files: the same records, problems and verdicts', async () => {
    const report = await validateSources([file], {});
    expect(report.replay?.count).toBe(5);
    const replayed: ValidatedRecord[] = [];
    for await (const r of streamValidatedRecords([file], {}, report)) replayed.push(r);
    const full: ValidatedRecord[] = [];
    for await (const r of streamValidatedRecords([file], {}, { ...report, replay: undefined })) full.push(r);
    expect(replayed).toEqual(full);
    // Line 4's duplicate id is a cross-record problem of its own pass: replayed from the first pass.
    expect(replayed[2]!.problems.map((p) => p.rule)).toEqual(['id.duplicate']);
  });

  it('a small run keeps its records between the passes: the second pass reads nothing and yields the same', async () => {
    const report = await validateSources([file], { keepUpTo: 5 });
    expect(report.replay?.kept).toHaveLength(5);
    const kept: ValidatedRecord[] = [];
    for await (const r of streamValidatedRecords([file], {}, report)) kept.push(r);
    const full: ValidatedRecord[] = [];
    for await (const r of streamValidatedRecords([file], {}, { ...report, replay: undefined })) full.push(r);
    expect(kept).toEqual(full); // late problems (lines 1 and 3) attached, verdicts the same
    expect(report.replay?.kept).toBeUndefined(); // taken by that pass: a later one reads the file again
    const again: ValidatedRecord[] = [];
    for await (const r of streamValidatedRecords([file], {}, report)) again.push(r);
    expect(again).toEqual(full);
    // More records than asked: none kept.
    expect((await validateSources([file], { keepUpTo: 4 })).replay?.kept).toBeUndefined();
  });

  it('a file changed between the passes is validated again in full, never replayed', async () => {
    const copy = join(dir, 'changed.ndjson');
    copyFileSync(file, copy);
    const report = await validateSources([copy], {});
    expect(report.replay).toBeDefined();
    appendFileSync(copy, JSON.stringify({ id: 'd', email: 'e@example.com', password: { hash: BCRYPT } }) + '\n');
    const out: ValidatedRecord[] = [];
    for await (const r of streamValidatedRecords([copy], {}, report)) out.push(r);
    expect(out.map((r) => [r.origin.line, r.record.id, r.valid])).toEqual([
      [1, 'a', false],
      [3, 'b', false],
      [4, 'a', false],
      [5, 'c', true],
      [6, 'd', true],
      [7, 'd', false],
    ]);
    expect(out[5]!.problems.map((p) => p.rule)).toEqual(['id.duplicate']);
  });
});
