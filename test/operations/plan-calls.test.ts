// The plan screen's list of calls comes from the engine's step table (no HTTP path in the shells).
import { describe, expect, it } from 'vitest';
import { plannedCalls } from '../../src/operations/plan-calls.js';
import { callCount, describeStep, requestsOf, STEP_RULES } from '../../src/engine/strategies/steps/rules.js';
import { VIA_EXPLAINED } from '../../src/engine/strategies/via.js';
import { planUserSteps } from '../../src/engine/plan/plan.js';

const BCRYPT = '$2b$10$' + 'a'.repeat(53);
const summary = { users: 4, planned: 3, skipped: 1, unplannable: 0, calls: 9, steps: 5 };

describe('plannedCalls', () => {
  it('names each step kind by its entry in the step table, with its count', () => {
    const calls = plannedCalls('steps', { ...summary, stepsByKind: { 'import-password': 3, 'create-role': 2 } });
    expect(calls).toEqual([
      { what: STEP_RULES['import-password'].requests, count: 3 },
      { what: STEP_RULES['create-role'].requests, count: 2 },
    ]);
    expect(calls[0]!.what).toContain('/recipe/user/passwordhash/import');
  });

  it('falls back to the kind for a kind the table gives no words for', () => {
    expect(requestsOf('change-email')).toBe('change-email');
    expect(plannedCalls('steps', { ...summary, stepsByKind: { 'change-email': 1 } })).toEqual([{ what: 'change-email', count: 1 }]);
  });

  it('gives the bulk path as one line over the planned users', () => {
    expect(plannedCalls('bulk', { ...summary, stepsByKind: { 'import-password': 3 } })).toEqual([{ what: VIA_EXPLAINED.bulk, count: 3 }]);
  });
});

describe('the step table', () => {
  it('counts and describes a planned user from its entries', () => {
    const steps = planUserSteps(
      {
        id: 'u1',
        email: 'a@example.com',
        password: { hash: BCRYPT, algorithm: 'bcrypt' },
        emailVerified: true,
      },
      {},
    );
    expect(steps.map((s) => s.kind)).toContain('import-password');
    const password = steps.find((s) => s.kind === 'import-password')!;
    expect(callCount(password)).toBe(2);
    expect(describeStep(password)).toContain('a@example.com');
    expect(describeStep(password)).not.toContain('$2b$');
  });
});
