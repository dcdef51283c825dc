// The readers' field report: each source field counted once per record, mapped and dropped kept apart,
// sorted output, and validate's text naming every dropped field once with its reason.
import { describe, expect, it } from 'vitest';
import { renderText } from '../../src/commands/validate.js';
import { lateVerdicts } from '../../src/records/late-verdicts.js';
import { emptySummary } from '../../src/records/summary.js';
import { FieldReport, renderFieldSummary } from '../../src/sources/index.js';

describe('FieldReport', () => {
  it('counts records per field and keeps the first target or reason', () => {
    const r = new FieldReport();
    expect(r.empty).toBe(true);
    r.mapped('clerk', 'first_name', 'metadata.first_name');
    r.mapped('clerk', 'first_name', 'metadata.first_name');
    r.mapped('clerk', 'email_addresses', 'email');
    r.dropped('clerk', 'backup_codes', 'the core has no recovery codes');
    r.dropped('clerk', 'backup_codes', 'the core has no recovery codes');
    r.dropped('clerk', 'backup_codes', 'the core has no recovery codes');
    r.dropped('cognito', 'UserStatus', 'not a user property in the core');
    expect(r.empty).toBe(false);
    expect(r.summary()).toEqual({
      mapped: [
        { format: 'clerk', field: 'email_addresses', to: 'email', records: 1 },
        { format: 'clerk', field: 'first_name', to: 'metadata.first_name', records: 2 },
      ],
      dropped: [
        { format: 'clerk', field: 'backup_codes', reason: 'the core has no recovery codes', records: 3 },
        { format: 'cognito', field: 'UserStatus', reason: 'not a user property in the core', records: 1 },
      ],
    });
  });

  it('renders nothing without entries, and each dropped field on one line', () => {
    expect(renderFieldSummary(undefined)).toEqual([]);
    const r = new FieldReport();
    r.mapped('clerk', 'id', 'id');
    r.dropped('clerk', 'backup_codes', 'the core has no recovery codes');
    const lines = renderFieldSummary(r.summary());
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain('source fields carried: 1 (clerk;');
    expect(lines[2]).toBe('    clerk backup_codes (1 record): the core has no recovery codes');
  });

  it('is part of validate text output', () => {
    const r = new FieldReport();
    r.dropped('cognito', 'UserStatus', 'not a user property in the core');
    const summary = { ...emptySummary(), fields: r.summary() };
    const text = renderText({ summary, problems: [], problemsOmitted: 0, lateErrors: 0, late: lateVerdicts(undefined) }, [], 1);
    expect(text).toContain('source fields NOT carried over (1):\n    cognito UserStatus (1 record): not a user property in the core\n');
  });
});
