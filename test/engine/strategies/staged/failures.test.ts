// The job's FAILED message for a row one job run met twice (the reference's BulkImportUserUtils keeps the
// external ids of a run in a set; two core instances running the job on one database both claim a PROCESSING row,
// BulkImportQueries.getBulkImportUsersAndChangeStatusToProcessing): said for what it is, other messages unchanged.
import { describe, expect, it } from 'vitest';
import { explainJobFailure } from '../../../../src/engine/strategies/staged/results.js';

describe('explainJobFailure', () => {
  it('explains "externalUserId ... is not unique" as a row the job took twice, and leaves other messages alone', () => {
    const twice = '[externalUserId ext-tw1-9114 is not unique. It is already used by another user.]';
    const said = explainJobFailure(twice);
    expect(said.startsWith(twice)).toBe(true);
    expect(said).toContain('more than one core instance runs the bulk-import job on one database');
    expect(said).toContain('the same command stages it again');
    const other = '[E003: A user with email a@b.example already exists]';
    expect(explainJobFailure(other)).toBe(other);
  });
});
