// `--via steps` on a core it reads in bulk (knowledge.ts): the external id mappings the run makes are read back from
// that knowledge's next listing of the core instead of one GET /recipe/userid/map each. The core's OK to a mapping
// names nothing, so the mapping counts only once read back (issue 31); GET /users answers each login method under
// its external id once mapped (the reference's UsersAPI calls UserIdMapping.populateExternalUserIdForUsers), so a
// listing that began after the OK and shows the login (by its account info, which names one login in the tenant)
// under the external id reads the mapping back. The user waits for that listing without holding a worker (the
// strategy lets its worker go meanwhile), and its mapping's journal line and its outcome line wait with it.
// A listing that ends without the login (a user created long before its mapping is past a refresh's reach, a
// failed read) answers false: the caller reads the mapping back by itself, as without this.
// Invariant: a mapping is confirmed only by a listing that began after the core's OK and shows the login under the
// external id; never by the OK itself.
import type { CoreClient, CoreUser } from '../../../core-client/types.js';
import { loginMethodKeys, stepKey } from '../bulk/knowledge.js';
import type { Step } from '../../plan/steps.js';
import { executeStep, type StepOutcome, type UserIds } from './execute.js';
import type { FreshKnowledge } from './knowledge.js';

/** A listing starts for the waiting mappings at most this long after the first of them, if the run has not read. */
const WAIT_MS = 2_000;

interface Waiting {
  loginKey: string;
  /** The reads begun before the OK: only a later one counts. */
  after: number;
  settle: (seen: boolean | undefined) => void;
}

export class MappingReadBacks {
  /** By external id. */
  private readonly waiting = new Map<string, Waiting>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** The run is stopping: the last listing's misses are left to the next run (undefined), not read back one by one. */
  private last = false;
  /** Told when no mapping is waiting any more (stopAfterLastRead). */
  private emptied: (() => void) | undefined;

  constructor(
    private readonly knowledge: FreshKnowledge,
    private readonly tenant: string,
    private readonly waitMs = WAIT_MS,
  ) {
    knowledge.watcher = { page: (users, read) => this.page(users, read), ended: (read) => this.ended(read) };
  }

  /**
   * Call right after the core's OK to mapping the login `loginKey` (bulk/knowledge.ts methodKey) to `externalId`:
   * true once a listing begun after now shows it, false when one ended without it, undefined when the run stopped.
   */
  confirm(loginKey: string, externalId: string): Promise<boolean | undefined> {
    if (this.stopped) return Promise.resolve(undefined);
    return new Promise((settle) => {
      this.waiting.get(externalId)?.settle(false); // the same external id twice at once: the first reads it back itself
      this.waiting.set(externalId, { loginKey, after: this.knowledge.reads, settle });
      this.arm();
    });
  }

  /** The input has ended (no step will ask the knowledge again): read now for the mappings still waiting. */
  flush(): void {
    if (this.waiting.size > 0) this.knowledge.readAfter(this.newestAfter());
  }

  /**
   * The run stops: one last listing for the mappings waiting (at most `ms`), so that what the core holds is journalled;
   * what it does not show, or all of them once `ms` has passed, is left to the journal's next run (undefined).
   * Called once every user has asked (the run's workers have ended), so no mapping joins the wait meanwhile.
   */
  async stopAfterLastRead(ms: number): Promise<void> {
    if (this.waiting.size > 0 && !this.stopped) {
      this.last = true;
      const emptied = new Promise<void>((r) => (this.emptied = r));
      this.flush();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([emptied, new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
      clearTimeout(timer);
    }
    this.stop();
  }

  /** The run stops now: every waiting mapping is left to the journal's next run (undefined). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const w of this.waiting.values()) w.settle(undefined);
    this.waiting.clear();
  }

  get size(): number {
    return this.waiting.size;
  }

  private page(users: CoreUser[], read: number): void {
    if (this.waiting.size === 0) return;
    for (const user of users) {
      for (const m of user.loginMethods) {
        const w = this.waiting.get(m.recipeUserId);
        if (w === undefined || read <= w.after || !loginMethodKeys(m, this.tenant).includes(w.loginKey)) continue;
        this.waiting.delete(m.recipeUserId);
        w.settle(true);
      }
    }
    if (this.waiting.size === 0) this.emptied?.();
  }

  private ended(read: number): void {
    for (const [external, w] of this.waiting) {
      if (read <= w.after) continue;
      this.waiting.delete(external);
      w.settle(this.last ? undefined : false);
    }
    if (this.waiting.size === 0) this.emptied?.();
    this.arm();
  }

  /** A listing for the waiting ones within `waitMs`, if the run's own refreshes have not read by then. */
  private arm(): void {
    if (this.timer !== undefined || this.waiting.size === 0 || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.waiting.size > 0) this.knowledge.readAfter(this.newestAfter());
      this.arm();
    }, this.waitMs);
    this.timer.unref();
  }

  private newestAfter(): number {
    let n = 0;
    for (const w of this.waiting.values()) n = Math.max(n, w.after);
    return n;
  }
}

export type MapStep = Extract<Step, { kind: 'map-user-id' }>;

/** How a user's mapping is read back with others' (mapping-readback.ts); `waiting` lets the user's worker go meanwhile. */
export interface LaterReadBack {
  readBacks: MappingReadBacks;
  waiting: () => void;
}

/**
 * The key of the login a map step maps, when its mapping can be read back by the run's listing: the user is this
 * run's own (created now, so it joined within the listing's reach) and its first login has account info.
 */
export function laterKey(step: MapStep, steps: Step[], ids: UserIds, tenant: string): string | undefined {
  if (!ids.created.has(step.user) || ids.alias.has(step.user)) return undefined;
  const login = steps.find((s) => s.key === step.user);
  return login ? stepKey(login, tenant) : undefined;
}

/**
 * A mapping the listing did not show, read back by itself through the exactly-once rule (execute.ts): looked up
 * first (GET /recipe/userid/map), as for a user there before, and sent again when not there (the OK may have been
 * another request's). The user is the run's, so what is found is its own.
 */
export async function readMappingBack(step: MapStep, ids: UserIds, core: CoreClient): Promise<StepOutcome> {
  const alias = new Map(ids.alias);
  alias.delete(step.user);
  const plain: UserIds = { ...ids, alias, created: new Set(), mappingReadLater: false };
  return executeStep(step, plain, core, undefined, { intended: true });
}
