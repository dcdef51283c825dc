// Instrumentation around a REAL core client (talking HTTP to a real sandbox): counts calls and calls in flight,
// remembers the one-time codes the core hands out, and can make chosen calls fail with an HTTP 500.
import { CoreHttpError } from '../../src/core-client/errors.js';
import type { LostWrites } from '../../src/core-client/lost-writes.js';
import type { CoreClient } from '../../src/core-client/types.js';

export interface InstrumentedCore {
  /** The real client, wrapped; pass it to the runner. */
  client: CoreClient;
  /** Method names of the calls made, in the order they started. */
  calls: string[];
  inFlight: number;
  maxInFlight: number;
  /**
   * The same for the users' own calls: not the engine's reads of the core beside them (its knowledge of what the
   * core holds, GET /users pages and GET /users/count, read in the background of the users' steps).
   */
  userInFlight: number;
  maxUserInFlight: number;
  /** Awaited before a call reaches the core when it returns a promise (a test holds a call until others began). */
  hold?: (method: string, args: unknown[]) => Promise<void> | undefined;
  /** userInputCodes the core answered createCode with (they must never reach the journal). */
  codes: string[];
  /**
   * When it returns true for a call, the call throws CoreHttpError 500 without reaching the core, as the client
   * does once its retries on a server error are spent.
   */
  serverError?: (method: string, args: unknown[]) => boolean;
}

/** Methods that are not calls to the core. */
const PASS_THROUGH = new Set(['forTenant', 'close', 'observe']);
/** The engine's own reads of the core (steps-knowledge.ts), not any user's step. */
const ENGINE_READS = new Set(['listUsers', 'raw']);

export function instrument(real: CoreClient): InstrumentedCore {
  const state: InstrumentedCore = { client: real, calls: [], inFlight: 0, maxInFlight: 0, userInFlight: 0, maxUserInFlight: 0, codes: [] };
  state.client = wrap(real, state);
  return state;
}

function wrap(real: CoreClient, state: InstrumentedCore): CoreClient {
  return new Proxy(real, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      // A step's view of the client (its lost answers counted) is instrumented as the client is.
      if (prop === 'countingLost') return (tally: LostWrites) => wrap(target.countingLost(tally), state);
      if (typeof value !== 'function' || typeof prop !== 'string' || PASS_THROUGH.has(prop)) return value;
      const fn = value as (...args: unknown[]) => Promise<unknown>;
      return async (...args: unknown[]) => {
        state.calls.push(prop);
        state.inFlight += 1;
        state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
        const users = !ENGINE_READS.has(prop);
        if (users) {
          state.userInFlight += 1;
          state.maxUserInFlight = Math.max(state.maxUserInFlight, state.userInFlight);
        }
        try {
          await state.hold?.(prop, args);
          if (state.serverError?.(prop, args)) {
            throw new CoreHttpError(500, 'java.lang.RuntimeException: injected by the test', 'POST', `/${prop}`, false);
          }
          const out = await fn.apply(target, args);
          if (prop === 'createCode') {
            const code = (out as { userInputCode?: string }).userInputCode;
            if (code) state.codes.push(code);
          }
          return out;
        } finally {
          state.inFlight -= 1;
          if (users) state.userInFlight -= 1;
        }
      };
    },
  });
}
