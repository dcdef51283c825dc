// A row the file damaged (cut short, a cell too few or too many, a quote never closed) is an error of the user it
// belongs to, not a loose line: when its id can still be read, the reader gives that user as a record holding only
// its id and the error, so validation counts it invalid by name and `run` leaves it waiting (never imported with
// less than its row holds); the same file fixed imports it whole on the next run. Column names from a header are
// shown only when they look like names: a damaged header may hold a data row's values (a secret, a hash).
import type { Problem, RecordOrigin } from '../records/types.js';
import type { SourceItem } from './index.js';

/** The user of a damaged row, invalid, when its id is known; else the problem alone. */
export function damagedRow(id: string | undefined, origin: RecordOrigin, message: string, rule = 'source.csv'): SourceItem {
  const problem: Problem = { severity: 'error', rule, origin, message };
  const trimmed = id?.trim();
  if (trimmed === undefined || trimmed === '') return { kind: 'problem', problem };
  problem.sourceId = trimmed;
  return { kind: 'record', value: { record: { id: trimmed }, origin, problems: [problem] } };
}

/** What a row with `got` of `want` cells says; the user waits until the file is fixed. */
export function cellCountMessage(got: number, want: number, fewer: string, more: string): string {
  return got < want
    ? `the row has ${got} of the header's ${want} columns: it was cut short or damaged (${fewer}); the user is left out until the file is fixed, then imported whole`
    : `the row has ${got} columns, the header ${want} (${more}); the user is left out until the file is fixed`;
}

const NAME_LIKE = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** A header cell to show in a message: itself when it looks like a column name, else its position only. */
export function columnLabel(name: string, position: number): string {
  return NAME_LIKE.test(name)
    ? name
    : `column ${position + 1} (its name is not shown: it does not look like a column name and may be data)`;
}
