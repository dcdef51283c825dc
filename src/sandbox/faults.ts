// The sandbox's fault modes, off by default: the failures the reference core shows under storage contention
// (issue 9), so a rehearsal can prove exactly-once results. At the configured rates, a write request is
// (a) applied and durable, then answered 500 (`after`), (b) answered 500 without being applied (`before`), or
// (c) applied only in part, then answered 500 (`partial`: a passwordless consume that uses up the code but
// creates no user, as seen on the reference core). Set with `auth-migrate core --faults SPEC` or
// AUTH_MIGRATE_SANDBOX_FAULTS, SPEC = `after=0.05,before=0.05,partial=0.05,seed=7` (docs/sandbox.md).
import { UserError } from '../errors.js';
import { createRng } from '../generators/rng.js';

export interface FaultConfig {
  after: number;
  before: number;
  partial: number;
  seed: number;
}

export const FAULTS_ENV = 'AUTH_MIGRATE_SANDBOX_FAULTS';

/** The text the reference core answers when its storage fails (an exception's toString, sent as text). */
export const FAULT_BODY =
  'io.supertokens.pluginInterface.exceptions.StorageQueryException: java.sql.SQLException: database is locked (sandbox fault)';

export function parseFaults(spec: string | undefined): FaultConfig | undefined {
  if (spec === undefined || spec.trim() === '') return undefined;
  const out: FaultConfig = { after: 0, before: 0, partial: 0, seed: 1 };
  for (const part of spec.split(',')) {
    const [name, value] = part.split('=').map((s) => s.trim());
    const n = Number(value);
    if (!(name === 'after' || name === 'before' || name === 'partial' || name === 'seed') || value === undefined || !Number.isFinite(n)) {
      throw new UserError(`sandbox faults: "${part}" is not after=RATE, before=RATE, partial=RATE or seed=N (e.g. after=0.05,seed=7)`, 2);
    }
    if (name !== 'seed' && (n < 0 || n > 1)) throw new UserError(`sandbox faults: the ${name} rate must be between 0 and 1`, 2);
    out[name] = n;
  }
  return out;
}

export type FaultDecision = 'none' | 'before' | 'after' | 'partial';

/** Only writes a migration makes are faulted: never licence, tenants, the test hooks or reads. */
const EXEMPT = /^\/(ee\/|recipe\/multitenancy\/|sandbox-test\/)/;

export interface FaultInjector {
  decide(method: string, path: string): FaultDecision;
}

export function createFaultInjector(config: FaultConfig | undefined): FaultInjector | undefined {
  if (!config || config.after + config.before + config.partial === 0) return undefined;
  const random = createRng(config.seed).next; // seeded, so a faulty rehearsal can be replayed
  return {
    decide(method, path) {
      if (method === 'GET' || EXEMPT.test(path)) return 'none';
      const r = random();
      if (r < config.before) return 'before';
      if (r < config.before + config.after) return 'after';
      // Partial application is only defined for the one multi-write operation that shows it.
      if (r < config.before + config.after + config.partial && path.endsWith('/recipe/signinup/code/consume')) return 'partial';
      return 'none';
    },
  };
}
