// Step 4: what the files hold: counts per kind, a scrollable and filterable table, one record's details and
// the password spot-check.
import { Box, Text } from 'ink';
import { useState } from 'react';
import { Field } from '../components/Field.js';
import { Frame } from '../components/Frame.js';
import { useWizard } from '../context.js';
import { useKeys } from '../hooks/useKeys.js';
import { helpLine, type Command } from '../keymap.js';
import { detailLines, tableCells } from '../records-view.js';
import { linesThatFit, wordWrappedRows } from '../fit.js';
import { formatCount } from '../../numbers.js';
import { visibleRows } from '../state/reducer.js';
import type { PreviewFilter } from '../state/types.js';
import { theme } from '../theme.js';
import { SummaryLines, summaryLines } from './SummaryLines.js';
import { inWizardWords } from '../wizard-words.js';
import { LineProblems } from './LineProblems.js';

const TABLE_KEYS: Command[] = ['up', 'down', 'pageUp', 'pageDown', 'select', 'filter', 'search', 'continue', 'back'];
const DETAIL_KEYS: Command[] = ['up', 'down', 'spotCheck', 'back'];
/** The table keeps at least this many rows (or all there are): the summary above it folds first. */
const MIN_TABLE_ROWS = 5;
const FILTERS: PreviewFilter[] = ['all', 'errors', 'warnings', 'lines'];

function cut(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width);
}

export function PreviewScreen() {
  const { state, actions, size } = useWizard();
  const [password, setPassword] = useState<string | undefined>(undefined);
  // The search being typed (undefined: not typing); enter searches every record of the files, not only those kept.
  const [query, setQuery] = useState<string | undefined>(undefined);
  const { preview, validation } = state;
  const search = preview.search;
  const rows = visibleRows(preview);
  // A record found by a search may be past the rows kept.
  const detail =
    preview.detail !== undefined ? [...(search?.rows ?? []), ...preview.rows].find((r) => r.key === preview.detail) : undefined;
  const help =
    query !== undefined
      ? 'type an id, email or phone, enter searches every record · esc cancel'
      : validation.status === 'failed'
        ? 'esc back to the sources (fix or remove the file) · ↑/↓ enter: records before it'
        : search
          ? `↑/↓ pgup/dn · enter details · f filter (${preview.filter}) · / search · esc all records`
          : `↑/↓ pgup/dn · enter details · f filter (${preview.filter}) · / search · c continue · esc back`;
  // Each part gets its rows from the terminal's: the frame's title and key help, a notice (one row kept for it), the
  // search or note line, then the table. When the table would get fewer than MIN_TABLE_ROWS rows the summary folds to
  // the lines that matter (the counts, a file that could not be read).
  const width = Math.max(40, size.columns);
  const noticeRows = state.notice ? wordWrappedRows(inWizardWords(state.notice.text), width) : 1;
  const bodyRows = size.rows - 1 - 2 - noticeRows - wordWrappedRows(help, width);
  const note =
    search && search.status !== 'running'
      ? undefined
      : !search && preview.seen > preview.rows.length
        ? `the table keeps the first ${formatCount(preview.rows.length)} of ${formatCount(preview.seen)} records; / searches them all`
        : undefined;
  const noteRows = query !== undefined || search ? 2 : note ? wordWrappedRows(note, width) : 0;
  const allSummary = summaryLines(state);
  const rowsOf = (lines: typeof allSummary) => lines.reduce((n, l) => n + wordWrappedRows(l.text, width), 0);
  const tableRoom = (summaryRows: number) => bodyRows - summaryRows - noteRows - 2;
  const folded = tableRoom(rowsOf(allSummary)) < Math.min(MIN_TABLE_ROWS, Math.max(1, rows.length));
  const summaryRows = rowsOf(folded ? allSummary.filter((l) => l.keep) : allSummary);
  const pageSize = Math.max(1, tableRoom(summaryRows));
  const lineProblems = validation.status === 'done' ? validation.value.lineProblems : [];
  // The `lines` filter is offered only when some line could not be read as a user.
  const filters = lineProblems.length > 0 ? FILTERS : FILTERS.filter((f) => f !== 'lines');
  const [lineFirst, setLineFirst] = useState(0);
  // In the lines view the table's rows hold the wrapped problems.
  const lineRows = Math.max(3, pageSize + 1);
  // The record's details scroll (↑/↓) when they are taller than the rows left by the password field and its result.
  const [detailFirst, setDetailFirst] = useState(0);

  useKeys(
    TABLE_KEYS,
    (c) => {
      if ((c === 'up' || c === 'down') && preview.filter === 'lines') {
        setLineFirst((f) => Math.max(0, Math.min(lineProblems.length - 1, f + (c === 'up' ? -1 : 1))));
      } else if (c === 'up' || c === 'down') actions.dispatchMove(c === 'up' ? -1 : 1);
      else if (c === 'pageUp' || c === 'pageDown') actions.dispatchMove(c === 'pageUp' ? -1 : 1, pageSize);
      else if (c === 'select' && rows[preview.cursor]) {
        setDetailFirst(0);
        actions.showDetail(rows[preview.cursor]!.key);
      } else if (c === 'filter') actions.setFilter(filters[(filters.indexOf(preview.filter) + 1) % filters.length]!);
      else if (c === 'search') setQuery(search?.query ?? '');
      else if (c === 'continue') {
        if (validation.status === 'failed') {
          actions.notice(
            'error',
            'the files could not be read to the end, so nothing can be migrated from them: esc goes back to the sources to fix or remove the file',
          );
        } else if (validation.status !== 'done') actions.notice('error', 'wait for the validation to finish');
        else if (validation.value.summary.valid === 0) actions.notice('error', 'no valid record to migrate: fix the files first');
        else actions.go('target');
      } else if (c === 'back') {
        if (search) void actions.searchRecords(undefined);
        else actions.back();
      }
    },
    { isActive: !detail && query === undefined },
  );
  useKeys(['back'], () => setQuery(undefined), { isActive: !detail && query !== undefined, textFocus: true });
  useKeys(
    DETAIL_KEYS,
    (c) => {
      if (c === 'up' || c === 'down') setDetailFirst((f) => Math.max(0, f + (c === 'up' ? -1 : 1)));
      else if (c === 'spotCheck') {
        // A new try clears the last result: an earlier "match" must never stand next to the password being typed.
        if (detail) actions.showDetail(detail.key);
        setPassword('');
      } else if (password !== undefined) setPassword(undefined);
      else actions.showDetail(undefined);
    },
    { isActive: detail !== undefined, textFocus: password !== undefined },
  );

  if (detail) {
    const spot = preview.spotCheck;
    const detailAll = detailLines(detail).map(inWizardWords);
    // Rows for the lines: the password field and the spot-check's result (two rows) and a "more" line aside.
    const detailRoom = bodyRows - (password !== undefined ? 1 : 0) - 2 - 1;
    const detailStart = Math.min(detailFirst, Math.max(0, detailAll.length - 1));
    const detailShown = linesThatFit(detailAll.slice(detailStart), Math.max(1, detailRoom), width);
    return (
      <Frame
        title="preview: one record"
        help={
          password !== undefined
            ? 'type the password, enter checks it · esc cancel'
            : helpLine(DETAIL_KEYS, { up: 'scroll', spotCheck: 'spot-check a password' })
        }
      >
        {detailShown.map((line, i) => (
          <Text key={i} wrap="wrap" {...(line.startsWith('error') ? theme.error : line.startsWith('warning') ? theme.warning : {})}>
            {line}
          </Text>
        ))}
        {detailShown.length < detailAll.length - detailStart ? (
          <Text {...theme.muted}>↓ {detailAll.length - detailStart - detailShown.length} more line(s)</Text>
        ) : null}
        {password !== undefined ? (
          <Field
            label="password"
            value={password}
            secret
            focus
            onChange={setPassword}
            onSubmit={(v) => {
              setPassword(undefined);
              void actions.spotCheck(detail.record, v);
            }}
          />
        ) : null}
        {spot.status === 'running' ? <Text {...theme.muted}>checking…</Text> : null}
        {spot.status === 'done' ? (
          <Text {...(spot.value.result === 'match' ? theme.ok : theme.warning)} wrap="wrap">
            spot-check: {spot.value.result} {spot.value.detail}
          </Text>
        ) : null}
        {spot.status === 'failed' ? <Text {...theme.error}>spot-check failed: {spot.error}</Text> : null}
      </Frame>
    );
  }

  const first = Math.max(0, Math.min(preview.cursor - Math.floor(pageSize / 2), rows.length - pageSize));
  const w = Math.max(60, size.columns) - 2;
  const widths = { id: Math.floor(w * 0.16), email: Math.floor(w * 0.3), first: 10, algorithm: 7, factors: 11 };
  // What is left for the problems column (none on a narrow terminal: enter shows a record's problems).
  const rest = Math.max(0, w - widths.id - widths.email - widths.first - widths.algorithm - widths.factors - 5);
  return (
    <Frame title="preview" help={help}>
      <SummaryLines folded={folded} />
      {query !== undefined ? (
        <Field
          label="search"
          value={query}
          focus
          onChange={setQuery}
          onSubmit={(q) => {
            setQuery(undefined);
            void actions.searchRecords(q);
          }}
          placeholder="id, email, phone or external id"
          labelWidth={8}
        />
      ) : search ? (
        <Text {...(search.status === 'failed' ? theme.error : theme.muted)} wrap="wrap">
          {search.status === 'running'
            ? `searching every record for "${search.query}"…`
            : search.status === 'failed'
              ? `the search failed: ${search.error}`
              : `"${search.query}": ${search.rows.length === 0 ? 'no record' : formatCount(search.rows.length)}${search.more ? ' shown, more match (search closer)' : ' found'} in every record · esc shows all`}
        </Text>
      ) : note ? (
        <Text {...theme.muted} wrap="wrap">
          {note}
        </Text>
      ) : null}
      {preview.filter === 'lines' ? (
        <Box marginTop={1} flexDirection="column">
          <LineProblems
            problems={lineProblems}
            first={lineFirst}
            rows={lineRows}
            width={width}
            omitted={validation.status === 'done' ? (validation.value.problemsOmitted ?? 0) : 0}
          />
        </Box>
      ) : null}
      <Box marginTop={1} flexDirection="column" display={preview.filter === 'lines' ? 'none' : 'flex'}>
        <Text {...theme.muted} wrap="truncate-end">
          {'  '}
          {cut('id', widths.id)} {cut('email/phone', widths.email)} {cut('first', widths.first)} {cut('algo', widths.algorithm)}{' '}
          {cut('factors', widths.factors)}
          {rest > 0 ? ` ${cut('problems', rest)}` : ''}
        </Text>
        {rows.slice(first, first + pageSize).map((row, i) => {
          const c = tableCells(row);
          const on = first + i === preview.cursor;
          const style = on ? theme.selected : row.valid ? (row.problems.length ? theme.warning : {}) : theme.error;
          return (
            <Text key={row.key} {...style} wrap="truncate-end">
              {on ? theme.symbols.pointer : ' '} {cut(c.id, widths.id)} {cut(c.email, widths.email)} {cut(c.first, widths.first)}{' '}
              {cut(c.algorithm, widths.algorithm)} {cut(c.factors, widths.factors)}
              {rest > 0 ? ` ${cut(c.problems, rest)}` : ''}
            </Text>
          );
        })}
        {rows.length === 0 && validation.status === 'done' ? (
          <Text {...theme.muted}> no records match the filter ({preview.filter})</Text>
        ) : null}
      </Box>
    </Frame>
  );
}
