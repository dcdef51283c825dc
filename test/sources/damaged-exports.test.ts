// Damaged vendor exports (the fuzzing of issue 21): every damage is an error tied to its user or a clear refusal,
// never a user imported with less than its row holds, and never a cell value printed as a column name.
// CR-only line ends, rows cut short or missing cells, a header glued to a data row, quoted line breaks.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateSources } from '../../src/records/validate.js';
import { FieldReport, parseHashConfig, type HashConfig } from '../../src/sources/index.js';
import { collect, fixture, tempDir } from '../support/sources.js';

let tmp: Awaited<ReturnType<typeof tempDir>>;
let hashConfig: HashConfig;
let clerk: string;
beforeAll(async () => {
  tmp = await tempDir();
  hashConfig = parseHashConfig(await readFile(fixture('firebase/hash-config.txt'), 'utf8'));
  clerk = await readFile(fixture('clerk/users.csv'), 'utf8');
});
afterAll(() => tmp.cleanup());

/** The values of the data rows of a CSV a message must never print (secrets, hashes, emails...; ids name users). */
const cellsOf = (csv: string): string[] =>
  csv
    .split('\n')
    .slice(2)
    .flatMap((l) => l.split(',').slice(1))
    .map((c) => c.replace(/"/g, ''))
    .filter((c) => c.length >= 8);

describe('Clerk export damage', () => {
  it('reads a CR-only file line by line: the same users, no value taken for a column name', async () => {
    const path = await tmp.file('cr.csv', clerk.replace(/\n/g, '\r'));
    const fields = new FieldReport();
    const cr = await collect([path], { fields, hashConfig });
    const lf = await collect([fixture('clerk/users.csv')], { hashConfig });
    expect(cr.records.map((r) => r.record)).toEqual(lf.records.map((r) => r.record));
    expect(cr.all).toEqual([]);
    expect(fields.summary().dropped.filter((e) => e.reason?.includes('not a column'))).toEqual([]);
  });

  it('an LF file whose rows are glued by lone CRs (mixed line endings) is refused, naming the line and no value', async () => {
    const lines = clerk.split('\n');
    const header = lines.findIndex((l) => l.startsWith('id,'));
    const mixed = [...lines.slice(0, header + 1), lines.slice(header + 1).join('\r')].join('\n');
    const path = await tmp.file('mixed.csv', mixed);
    const err = await validateSources([path], { hashConfig }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toMatch(new RegExp(`mixed.csv:${header + 2}: this line holds a lone carriage return`));
    for (const cell of cellsOf(clerk)) expect(err!.message).not.toContain(cell);
    // A CR inside a quoted value is the value's own: read, not refused.
    const quoted = await tmp.file('quoted-cr.csv', clerk.replace('"{""plan"":', '"{""note"":""a\rb"",""plan"":'));
    expect(await readFile(quoted, 'utf8')).toContain('a\rb');
    const read = await validateSources([quoted], { hashConfig });
    expect(read.summary).toMatchObject({ records: 6, invalid: 0 });
  });

  it('a row cut mid-file (10 of 19 cells) or at the end of the file makes that user invalid by id, never phone-only', async () => {
    const lines = clerk.split('\n');
    const eve = lines.findIndex((l) => l.startsWith('user_2eve'));
    const cutRow = (l: string, cells: number): string => l.split(',').slice(0, cells).join(',');
    // Ten cells of eve's row: her password digest and TOTP secret are in the missing ones.
    lines[eve] = cutRow(lines[eve]!, 10);
    const midFile = await tmp.file('cut-mid.csv', lines.join('\n'));
    // The file cut inside bob's quoted argon2 digest.
    const atEnd = await tmp.file('cut-end.csv', clerk.slice(0, clerk.indexOf('$argon2id$') + 20));
    for (const [path, id] of [
      [midFile, 'user_2eve'],
      [atEnd, 'user_2bob'],
    ] as const) {
      const report = await validateSources([path], { hashConfig });
      const errors = report.problems.filter((p) => p.severity === 'error');
      expect(
        errors.map((p) => [p.sourceId, p.rule]),
        path,
      ).toEqual([[id, 'source.csv']]);
      expect(errors[0]!.message).toMatch(/left out until the file is fixed|not closed/);
      expect(report.summary.invalid).toBe(1);
      const { records } = await collect([path], { hashConfig });
      // The user holds nothing that could be imported without the rest.
      expect(records.find((r) => r.record.id === id)!.record).toEqual({ id });
      for (const p of report.problems) for (const c of cellsOf(clerk)) expect(p.message).not.toContain(c);
    }
  });

  it('a header glued to its first row (a lost line break) prints no value of that row', async () => {
    const lines = clerk.split('\n');
    lines[1] = `${lines[1]},${lines[2]}`;
    lines.splice(2, 1);
    const path = await tmp.file('glued.csv', lines.join('\n'));
    const fields = new FieldReport();
    const report = await validateSources([path], { fields, hashConfig });
    const printed = JSON.stringify({ problems: report.problems, fields: fields.summary() });
    for (const c of cellsOf(clerk)) expect(printed).not.toContain(c);
    // Every row is shorter than the header: each user waits, by id.
    expect(report.summary.valid).toBe(0);
  });

  it('reads values with quoted line breaks (metadata as Clerk writes it)', async () => {
    const lines = clerk.split('\n');
    const ann = lines.findIndex((l) => l.startsWith('user_2ann'));
    lines[ann] = lines[ann]!.replace('{""plan"":""pro""}', '{""plan"":\n""pro""}');
    const path = await tmp.file('multiline.csv', lines.join('\n'));
    const { records, all } = await collect([path], { hashConfig });
    expect(all).toEqual([]);
    expect(records.find((r) => r.record.id === 'user_2ann')!.record.metadata).toMatchObject({ public_metadata: { plan: 'pro' } });
    expect(records.map((r) => r.origin.line)).toEqual([3, 5, 6, 7, 8, 9]);
  });
});

describe('Supabase companion damage', () => {
  const tables = ['users', 'identities', 'mfa_factors'];
  const copy = async (changes: Partial<Record<string, (text: string) => string>>): Promise<string[]> => {
    const paths: string[] = [];
    for (const t of tables) {
      const text = await readFile(fixture(`supabase/${t}.csv`), 'utf8');
      paths.push(await tmp.file(`${t}.csv`, (changes[t] ?? ((x: string) => x))(text)));
    }
    return paths;
  };

  it('a CR-only mfa_factors.csv is read: its users keep their TOTP devices', async () => {
    const paths = await copy({ mfa_factors: (t) => t.replace(/\n/g, '\r') });
    const cr = await collect(paths, { hashConfig });
    const lf = await collect(
      tables.map((t) => fixture(`supabase/${t}.csv`)),
      { hashConfig },
    );
    expect(cr.records.map((r) => r.record)).toEqual(lf.records.map((r) => r.record));
    expect(cr.records.filter((r) => r.record.totp).length).toBe(2);
  });

  it('an mfa_factors.csv with an LF header and CR-glued rows is refused: no user imported without its factors', async () => {
    const paths = await copy({ mfa_factors: (t) => t.replace(/\n(?!$)/g, (m, at: number) => (at === t.indexOf('\n') ? m : '\r')) });
    await expect(validateSources(paths, { hashConfig })).rejects.toThrow(/mfa_factors\.csv:2: this line holds a lone carriage return/);
  });

  it('a cut mfa_factors row is an error of the user it names (by user_id): that user waits, the others are whole', async () => {
    const factors = await readFile(fixture('supabase/mfa_factors.csv'), 'utf8');
    const rows = factors.trimEnd().split('\n');
    const fayRow = rows.at(-1)!;
    const fayId = fayRow.split(',')[1]!;
    // Cut inside the secret: the row has 6 of 8 cells, and the file ends there.
    const cut = await copy({ mfa_factors: () => [...rows.slice(0, -1), fayRow.slice(0, fayRow.indexOf('verified,') + 14)].join('\n') });
    const report = await validateSources(cut, { hashConfig });
    expect(report.problems.filter((p) => p.severity === 'error').map((p) => [p.sourceId, p.rule])).toEqual([[fayId, 'source.csv']]);
    expect(report.summary.invalid).toBe(1);
    // A row whose user_id cannot be read is a finding of the whole run (no user to hold back).
    const noUser = await copy({ mfa_factors: () => [...rows.slice(0, -1), fayRow.slice(0, 20)].join('\n') });
    const findings = await validateSources(noUser, { hashConfig });
    expect(findings.summary.droppedClasses?.map((d) => d.rule)).toEqual(['companion.damaged']);
  });
});
