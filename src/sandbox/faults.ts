// The sandbox's fault modes, off by default: the failures the reference core (11.4.4) shows under storage
// contention (issues 9 and 20), so a rehearsal can prove exactly-once results. At the configured rates:
// `before` answers a write 500 without applying it; `after` applies a write, makes it durable, then answers 500;
// `partial` makes a passwordless consume use up the code and create no user (Passwordless.java:386-396 commits
// the code's deletion, then :431/:462 look up or create the user in transactions of their own);
// `unverified` makes a write that creates (or finds) a user and then marks its email verified in a second
// transaction stop between the two (ThirdParty.java:171 then :180; Passwordless.java:462 then :471, :493-509);
// `reads` answers a GET lookup 500 (the reference's most frequent 500 under load was GET /users/by-accountinfo).
// Two more rehearse a misbehaving proxy in front of a core rather than the core (issue 31): `replay` answers a
// write with another request's earlier 200 body of the same path and applies nothing; `bareok` answers a write
// `{"status":"OK"}` and applies nothing.
// SPEC = `before=0.05,after=0.05,partial=0.05,unverified=0.05,replay=0.03,bareok=0.03,reads=0.05,seed=7` (docs/sandbox.md).
import { UserError } from '../errors.js';
import { createRng } from '../shared/rng.js';

export interface FaultConfig {
  after: number;
  before: number;
  partial: number;
  unverified: number;
  replay: number;
  bareok: number;
  reads: number;
  seed: number;
}

export const FAULTS_ENV = 'AUTH_MIGRATE_SANDBOX_FAULTS';

const NAMES = ['before', 'after', 'partial', 'unverified', 'replay', 'bareok', 'reads', 'seed'] as const;
type Name = (typeof NAMES)[number];

/**
 * What the reference core answers when its in-memory storage meets lock contention: WebserverAPI.service sends
 * `rootCause.toString()` (WebserverAPI.java:548-550) of a StorageQueryException wrapping sqlite-jdbc's
 * SQLiteException (`[CODE] message (sqlite's own message)`, DB.newSQLException), as text/html. This one, naming
 * the table it waited for, was answered by a running reference core 11.4.4 to a GET /user/id.
 */
export const FAULT_BODY =
  'io.supertokens.pluginInterface.exceptions.StorageQueryException: org.sqlite.SQLiteException: [SQLITE_LOCKED_SHAREDCACHE] ' +
  'Contention with a different database connection that shares the cache (database table is locked: app_id_to_user_id)';

export const FAULT_SPEC_HELP =
  'before=RATE, after=RATE, partial=RATE, unverified=RATE, replay=RATE, bareok=RATE, reads=RATE or seed=N (e.g. after=0.05,reads=0.05,seed=7)';

export function parseFaults(spec: string | undefined): FaultConfig | undefined {
  if (spec === undefined || spec.trim() === '') return undefined;
  const out: FaultConfig = { after: 0, before: 0, partial: 0, unverified: 0, replay: 0, bareok: 0, reads: 0, seed: 1 };
  for (const part of spec.split(',')) {
    const [name, value] = part.split('=').map((s) => s.trim());
    const n = Number(value);
    if (!NAMES.includes(name as Name) || value === undefined || value === '' || !Number.isFinite(n)) {
      throw new UserError(`sandbox faults: "${part}" is not ${FAULT_SPEC_HELP}`, 2);
    }
    if (name !== 'seed' && (n < 0 || n > 1)) throw new UserError(`sandbox faults: the ${name} rate must be between 0 and 1`, 2);
    out[name as Name] = n;
  }
  if (writeRates(out) > 1) {
    throw new UserError(
      'sandbox faults: before, after, partial, unverified, replay and bareok share the writes: their rates add up to more than 1',
      2,
    );
  }
  return out;
}

const writeRates = (c: FaultConfig): number => c.before + c.after + c.partial + c.unverified + c.replay + c.bareok;

export type FaultDecision = 'none' | 'before' | 'after' | 'partial' | 'unverified' | 'replay' | 'bareok' | 'read';

/** Never faulted: licence, tenant and app management, the test hooks, /hello and /apiversion. */
const EXEMPT = /^\/(ee\/|recipe\/multitenancy\/|sandbox-test\/|hello$|apiversion$|$)/;
const CONSUME = '/recipe/signinup/code/consume';
/** The operations that mark an email verified in a transaction of its own after creating or finding the user. */
const VERIFIES_AFTER = new Set(['/recipe/signinup', CONSUME]);

export interface FaultInjector {
  /** `route`: the matched route's path (without the app and tenant prefix). */
  decide(method: string, route: string): FaultDecision;
  /** A number in [0, 1) from the same seeded draw (which earlier body a `replay` answers). */
  random(): number;
}

export function createFaultInjector(config: FaultConfig | undefined): FaultInjector | undefined {
  if (!config || writeRates(config) + config.reads === 0) return undefined;
  const random = createRng(config.seed).next; // seeded, so a faulty rehearsal can be replayed
  return {
    decide(method, route) {
      if (EXEMPT.test(route)) return 'none';
      if (method === 'GET') {
        // No draw when reads are not faulted: a spec without `reads` faults the same writes as before it existed.
        if (config.reads === 0) return 'none';
        return random() < config.reads ? 'read' : 'none';
      }
      const r = random();
      let edge = config.before;
      if (r < edge) return 'before';
      if (r < (edge += config.after)) return 'after';
      // Partial application is only defined for the operations that show it on the reference core.
      if (r < (edge += config.partial)) return route === CONSUME ? 'partial' : 'none';
      if (r < (edge += config.unverified)) return VERIFIES_AFTER.has(route) ? 'unverified' : 'none';
      if (r < (edge += config.replay)) return 'replay';
      if (r < (edge += config.bareok)) return 'bareok';
      return 'none';
    },
    random,
  };
}
