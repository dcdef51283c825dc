// Step 4: what the files hold: counts per kind, a scrollable and filterable table, one record's details and
// the password spot-check. This module lays the screen out and routes its keys; the panels are PreviewTable.tsx
// (the table and the search line) and PreviewDetail.tsx (one record).
import { Box } from 'ink';
import { useState } from 'react';
import { Frame } from '../components/Frame.js';
import { useWizard, type WizardContextValue } from '../context.js';
import { useKeys } from '../hooks/useKeys.js';
import type { Command } from '../keymap.js';
import { wordWrappedRows } from '../fit.js';
import { formatCount } from '../../numbers.js';
import { visibleRows } from '../state/reducer.js';
import type { PreviewFilter, WizardState } from '../state/types.js';
import type { PreviewRecord } from '../services/types.js';
import { SummaryLines, summaryLines } from './SummaryLines.js';
import { inWizardWords } from '../wizard-words.js';
import { LineProblems } from './LineProblems.js';
import { DETAIL_KEYS, PreviewDetail } from './PreviewDetail.js';
import { PreviewTable, SearchLine } from './PreviewTable.js';

const TABLE_KEYS: Command[] = ['up', 'down', 'pageUp', 'pageDown', 'select', 'filter', 'search', 'continue', 'back'];
/** The table keeps at least this many rows (or all there are): the summary above it folds first. */
const MIN_TABLE_ROWS = 5;
const FILTERS: PreviewFilter[] = ['all', 'errors', 'warnings', 'lines'];

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
  const { width, bodyRows, note, folded, pageSize } = previewLayout(state, size, help, query, rows.length);
  const lineProblems = validation.status === 'done' ? validation.value.lineProblems : [];
  const [lineFirst, setLineFirst] = useState(0);
  // In the lines view the table's rows hold the wrapped problems.
  const lineRows = Math.max(3, pageSize + 1);
  // The record's details scroll (↑/↓) when they are taller than the rows left by the password field and its result.
  const [detailFirst, setDetailFirst] = useState(0);
  usePreviewKeys({ state, actions }, { detail, query, setQuery, password, setPassword, setLineFirst, setDetailFirst, pageSize });

  if (detail) {
    return (
      <PreviewDetail
        detail={detail}
        spot={preview.spotCheck}
        password={password}
        setPassword={setPassword}
        onSpotCheck={(v) => void actions.spotCheck(detail.record, v)}
        detailFirst={detailFirst}
        bodyRows={bodyRows}
        width={width}
      />
    );
  }
  return (
    <Frame title="preview" help={help}>
      <SummaryLines folded={folded} />
      <SearchLine query={query} setQuery={setQuery} onSearch={(q) => void actions.searchRecords(q)} search={search} note={note} />
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
      <PreviewTable
        rows={rows}
        cursor={preview.cursor}
        pageSize={pageSize}
        columns={size.columns}
        hidden={preview.filter === 'lines'}
        emptyNote={validation.status === 'done' ? `no records match the filter (${preview.filter})` : undefined}
      />
    </Frame>
  );
}

/**
 * Each part gets its rows from the terminal's: the frame's title and key help, a notice (one row kept for it), the
 * search or note line, then the table. When the table would get fewer than MIN_TABLE_ROWS rows the summary folds to
 * the lines that matter (the counts, a file that could not be read).
 */
function previewLayout(state: WizardState, size: WizardContextValue['size'], help: string, query: string | undefined, rowCount: number) {
  const { preview } = state;
  const search = preview.search;
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
  const folded = tableRoom(rowsOf(allSummary)) < Math.min(MIN_TABLE_ROWS, Math.max(1, rowCount));
  const summaryRows = rowsOf(folded ? allSummary.filter((l) => l.keep) : allSummary);
  const pageSize = Math.max(1, tableRoom(summaryRows));
  return { width, bodyRows, note, folded, pageSize };
}

interface PreviewKeyState {
  detail: PreviewRecord | undefined;
  query: string | undefined;
  setQuery(q: string | undefined): void;
  password: string | undefined;
  setPassword(p: string | undefined): void;
  setLineFirst(f: (n: number) => number): void;
  setDetailFirst(f: number | ((n: number) => number)): void;
  pageSize: number;
}

/** The screen's keys: the table's (moves, filter, search, continue), the search field's esc, and one record's. */
function usePreviewKeys({ state, actions }: Pick<WizardContextValue, 'state' | 'actions'>, k: PreviewKeyState) {
  const { preview, validation } = state;
  const search = preview.search;
  const rows = visibleRows(preview);
  const lineProblems = validation.status === 'done' ? validation.value.lineProblems : [];
  // The `lines` filter is offered only when some line could not be read as a user.
  const filters = lineProblems.length > 0 ? FILTERS : FILTERS.filter((f) => f !== 'lines');
  useKeys(
    TABLE_KEYS,
    (c) => {
      if ((c === 'up' || c === 'down') && preview.filter === 'lines') {
        k.setLineFirst((f) => Math.max(0, Math.min(lineProblems.length - 1, f + (c === 'up' ? -1 : 1))));
      } else if (c === 'up' || c === 'down') actions.dispatchMove(c === 'up' ? -1 : 1);
      else if (c === 'pageUp' || c === 'pageDown') actions.dispatchMove(c === 'pageUp' ? -1 : 1, k.pageSize);
      else if (c === 'select' && rows[preview.cursor]) {
        k.setDetailFirst(0);
        actions.showDetail(rows[preview.cursor]!.key);
      } else if (c === 'filter') actions.setFilter(filters[(filters.indexOf(preview.filter) + 1) % filters.length]!);
      else if (c === 'search') k.setQuery(search?.query ?? '');
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
    { isActive: !k.detail && k.query === undefined },
  );
  useKeys(['back'], () => k.setQuery(undefined), { isActive: !k.detail && k.query !== undefined, textFocus: true });
  useKeys(
    DETAIL_KEYS,
    (c) => {
      if (c === 'up' || c === 'down') k.setDetailFirst((f) => Math.max(0, f + (c === 'up' ? -1 : 1)));
      else if (c === 'spotCheck') {
        // A new try clears the last result: an earlier "match" must never stand next to the password being typed.
        if (k.detail) actions.showDetail(k.detail.key);
        k.setPassword('');
      } else if (k.password !== undefined) k.setPassword(undefined);
      else actions.showDetail(undefined);
    },
    { isActive: k.detail !== undefined, textFocus: k.password !== undefined },
  );
}
