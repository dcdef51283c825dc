// The preview screen's table of records (the page around the cursor, cut to the terminal's width) and the line
// above it: the search being typed, what a search found, or a note that the table keeps only the first records.
import { Box, Text } from 'ink';
import { Field } from '../components/Field.js';
import { formatCount } from '../../numbers.js';
import { tableCells } from '../records-view.js';
import type { PreviewRecord } from '../services/types.js';
import type { PreviewSearch } from '../state/types.js';
import { theme } from '../theme.js';

function cut(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width);
}

export interface SearchLineProps {
  /** The search being typed (undefined: not typing). */
  query: string | undefined;
  setQuery(query: string | undefined): void;
  onSearch(query: string): void;
  search: PreviewSearch | undefined;
  note: string | undefined;
}

export function SearchLine({ query, setQuery, onSearch, search, note }: SearchLineProps) {
  if (query !== undefined) {
    return (
      <Field
        label="search"
        value={query}
        focus
        onChange={setQuery}
        onSubmit={(q) => {
          setQuery(undefined);
          onSearch(q);
        }}
        placeholder="id, email, phone or external id"
        labelWidth={8}
      />
    );
  }
  if (search) {
    return (
      <Text {...(search.status === 'failed' ? theme.error : theme.muted)} wrap="wrap">
        {search.status === 'running'
          ? `searching every record for "${search.query}"…`
          : search.status === 'failed'
            ? `the search failed: ${search.error}`
            : `"${search.query}": ${search.rows.length === 0 ? 'no record' : formatCount(search.rows.length)}${search.more ? ' shown, more match (search closer)' : ' found'} in every record · esc shows all`}
      </Text>
    );
  }
  return note ? (
    <Text {...theme.muted} wrap="wrap">
      {note}
    </Text>
  ) : null;
}

export interface PreviewTableProps {
  rows: PreviewRecord[];
  cursor: number;
  pageSize: number;
  columns: number;
  /** Hidden (not unmounted) while the `lines` filter lists the lines instead. */
  hidden: boolean;
  /** Said when no row matches the filter (once the validation is done). */
  emptyNote: string | undefined;
}

export function PreviewTable({ rows, cursor, pageSize, columns, hidden, emptyNote }: PreviewTableProps) {
  const first = Math.max(0, Math.min(cursor - Math.floor(pageSize / 2), rows.length - pageSize));
  const w = Math.max(60, columns) - 2;
  const widths = { id: Math.floor(w * 0.16), email: Math.floor(w * 0.3), first: 10, algorithm: 7, factors: 11 };
  // What is left for the problems column (none on a narrow terminal: enter shows a record's problems).
  const rest = Math.max(0, w - widths.id - widths.email - widths.first - widths.algorithm - widths.factors - 5);
  return (
    <Box marginTop={1} flexDirection="column" display={hidden ? 'none' : 'flex'}>
      <Text {...theme.muted} wrap="truncate-end">
        {'  '}
        {cut('id', widths.id)} {cut('email/phone', widths.email)} {cut('first', widths.first)} {cut('algo', widths.algorithm)}{' '}
        {cut('factors', widths.factors)}
        {rest > 0 ? ` ${cut('problems', rest)}` : ''}
      </Text>
      {rows.slice(first, first + pageSize).map((row, i) => {
        const c = tableCells(row);
        const on = first + i === cursor;
        const style = on ? theme.selected : row.valid ? (row.problems.length ? theme.warning : {}) : theme.error;
        return (
          <Text key={row.key} {...style} wrap="truncate-end">
            {on ? theme.symbols.pointer : ' '} {cut(c.id, widths.id)} {cut(c.email, widths.email)} {cut(c.first, widths.first)}{' '}
            {cut(c.algorithm, widths.algorithm)} {cut(c.factors, widths.factors)}
            {rest > 0 ? ` ${cut(c.problems, rest)}` : ''}
          </Text>
        );
      })}
      {rows.length === 0 && emptyNote !== undefined ? <Text {...theme.muted}> {emptyNote}</Text> : null}
    </Box>
  );
}
