// The wizard's record actions (source and preview screens): validate the files (records stream into the preview as
// they are read), move through the table, filter it, open a record, spot-check its password, search all records.
// The password of a spot check is never dispatched.
import { useMemo } from 'react';
import type { CanonicalUser } from '../../records/types.js';
import type { PreviewFilter } from '../state/types.js';
import { message, migrationInput, type ActionContext } from './action-context.js';

/** Records a search of the preview keeps (the files can hold millions). */
const SEARCH_LIMIT = 500;

export interface RecordsActions {
  validate(): Promise<void>;
  dispatchMove(delta: number, pageSize?: number): void;
  showDetail(key: string | undefined): void;
  setFilter(filter: PreviewFilter): void;
  spotCheck(record: CanonicalUser, password: string): Promise<void>;
  /** Search every record of the files (id, email, phone, external id); undefined clears the search. */
  searchRecords(query: string | undefined): Promise<void>;
}

export function useRecordsActions({ services, d, latest }: ActionContext): RecordsActions {
  return useMemo<RecordsActions>(
    () => ({
      validate: async () => {
        d({ type: 'validation-started' });
        try {
          const report = await services.validate(migrationInput(latest.current), (record) => d({ type: 'validation-record', record }));
          d({ type: 'validation-finished', report });
        } catch (err) {
          d({ type: 'validation-failed', error: message(err) });
        }
      },
      dispatchMove: (delta, pageSize) => d({ type: 'preview-move', delta, pageSize }),
      showDetail: (key) => d({ type: 'preview-detail', key }),
      setFilter: (filter) => d({ type: 'preview-filter', filter }),
      spotCheck: async (record, password) => {
        d({ type: 'spot-check-started' });
        try {
          d({ type: 'spot-check-finished', result: await services.spotCheck(record, password, latest.current.secrets.signerKey) });
        } catch (err) {
          d({ type: 'spot-check-failed', error: message(err) });
        }
      },
      searchRecords: async (query) => {
        if (query === undefined || query.trim() === '') return d({ type: 'preview-search', search: undefined });
        d({ type: 'preview-search', search: { query, status: 'running', rows: [], more: false } });
        try {
          const found = await services.search(migrationInput(latest.current), query, SEARCH_LIMIT);
          d({ type: 'preview-search', search: { query, status: 'done', ...found } });
        } catch (err) {
          d({ type: 'preview-search', search: { query, status: 'failed', rows: [], more: false, error: message(err) } });
        }
      },
    }),
    [services, d, latest],
  );
}
