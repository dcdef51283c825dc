// `--via steps`: what the core holds, read once in bulk and kept fresh from its newest end, so that a step that
// creates a user skips its look-up when its login method is known to be absent (about one request per user fewer);
// knowledge-choice.ts decides whether a run reads the core so. Never a look-up in place of knowledge that is late: a
// step waits for it (so the requests a run sends do not depend on the machine's load).
// Invariant: a step is told "absent" only by knowledge read within its greatest age (or the run's pace, below).
import { CoreHttpError } from '../../../core-client/errors.js';
import type { CoreClient, CoreUser } from '../../../core-client/types.js';
import { CoreKnowledge, stepKey } from '../bulk/knowledge.js';
import { readSince, USERS_PAGE } from '../staged/slices.js';
import { COMMIT_MARGIN_MS, refreshPage, refreshReaders } from './refresh-span.js';
import type { Step } from '../../plan/steps.js';

/** A refresh starts, unwaited for, once the knowledge is this part of its greatest age old. */
const REFRESH_AT = 0.8;
/**
 * Questions (two a user that creates a login: while written ahead and before its request) since a read began, below
 * which the knowledge may be older than `maxAgeMs`, up to SLOWEST_MS: a run slowed down (a loaded machine, a slow
 * core) then reads the core once for about this many questions rather than once a second, so its requests per user
 * do not grow as it slows (about one read for 64 users: under 1% of the bare script's requests).
 */
const PACE_ASKS = 128;
/** The greatest age of the knowledge however few questions came. */
const SLOWEST_MS = 10_000;

/** How fresh a FreshKnowledge is kept; tests fix the clock and the margin. */
export interface FreshnessOptions {
  /** The knowledge's greatest age when it answers (default a second; see the class). */
  maxAgeMs?: number;
  now?: () => number;
  /** Questions since a read below which the knowledge may be older (default PACE_ASKS). */
  paceAsks?: number;
  /** The commit margin of the next refresh (default COMMIT_MARGIN_MS; runs give refresh-span.ts commitMargin). */
  margin?: () => number;
}

/**
 * What the core holds, learnt once in bulk and kept fresh from the newest end (GET /users from the newest join time
 * the last read saw, less a commit margin), never older than `maxAgeMs` when it answers (while the run asks at least
 * PACE_ASKS questions in that time; never older than SLOWEST_MS): a refresh starts in the background at REFRESH_AT of
 * that age, and a step that asks once the knowledge is older waits for a read that began within it. A refresh reads
 * again the users who joined within `margin()` of the newest seen (COMMIT_MARGIN_MS). Users another
 * tool bulk-imports meanwhile (with old join dates) are not seen; a sign-up in the app within that last second (or
 * the time the run took for its last 64 users, at most 10 s) could have its password hash replaced by the import,
 * which then answers that it existed.
 */
export class FreshKnowledge {
  private known: CoreKnowledge | undefined;
  /** The core takes a made pagination token (strategies/staged/slices.ts): refreshes read from a join time. */
  private madeTokens = true;
  private reading: Promise<void> | undefined;
  /** When the read under way began, and the questions asked by then. */
  private readingFrom = 0;
  private readingAsks = 0;
  /** When the read that `known` comes from began, and the questions asked by then. */
  private readFrom = 0;
  private readAsks = 0;
  /** Questions asked so far. */
  private asks = 0;
  private newest = 0;
  /** Users the last refresh read (its readers: one a page of them, at most REFRESH_SLICES). */
  private lastRead = 0;
  /** Each step's key (strategies/bulk/knowledge.ts stepKey), for as long as the step lives. */
  private readonly keys = new WeakMap<Step, string | undefined>();
  /** Reads of the core so far (the first one and the refreshes); a read's number is the count when it began. */
  reads = 0;
  /** Sees every page of every read, and each read's end (mapping-readback.ts reads mappings back from them). */
  watcher: KnowledgeWatcher | undefined;

  private readonly maxAgeMs: number;
  private readonly now: () => number;
  private readonly paceAsks: number;
  private readonly margin: () => number;

  constructor(
    private readonly core: CoreClient,
    options: FreshnessOptions = {},
  ) {
    this.maxAgeMs = options.maxAgeMs ?? 1_000;
    this.now = options.now ?? Date.now;
    this.paceAsks = options.paceAsks ?? PACE_ASKS;
    this.margin = options.margin ?? (() => COMMIT_MARGIN_MS);
  }

  /** Whether the login method `step` creates is known to be absent from the core (false when unsure). */
  async absent(step: Step): Promise<boolean> {
    // Asked when the user is written ahead and again before its request: the key is made once.
    let key = this.keys.get(step);
    if (key === undefined && !this.keys.has(step)) this.keys.set(step, (key = stepKey(step, this.core.tenantId)));
    if (key === undefined) return false;
    let known: CoreKnowledge;
    try {
      known = await this.fresh();
    } catch {
      return false; // the read failed: the step looks the user up as it always did
    }
    // The step also finds its user by the external id (a user whose email changed in the core since the export).
    const external = (step as { externalUserId?: string }).externalUserId;
    return !known.has(key) && (external === undefined || !known.has(`ext|${external}`));
  }

  /** Knowledge fresh enough now (see the class); rejects when the read it needed failed. */
  private async fresh(): Promise<CoreKnowledge> {
    this.asks += 1;
    const asked = this.now();
    for (;;) {
      if (this.known && !this.stale(this.readFrom, this.readAsks, asked, 1)) {
        if (this.stale(this.readFrom, this.readAsks, asked, REFRESH_AT)) void this.start().catch(() => undefined);
        return this.known;
      }
      const reading = this.start();
      // A read that began too long ago is stale on arrival too: after it, one that begins now.
      if (this.stale(this.readingFrom, this.readingAsks, asked, 1)) await reading.catch(() => undefined);
      else await reading;
    }
  }

  /** Whether a read begun at `from` (after `asks` questions) is `part` of the way to too old at `now`. */
  private stale(from: number, asks: number, now: number, part: number): boolean {
    const age = now - from;
    return age >= this.maxAgeMs * part && (this.asks - asks >= this.paceAsks * part || age >= SLOWEST_MS * part);
  }

  /** The read under way, or a new one. */
  private start(): Promise<void> {
    if (!this.reading) {
      this.readingFrom = this.now();
      this.readingAsks = this.asks;
      const no = (this.reads += 1);
      this.reading = this.read(this.readingFrom, this.readingAsks, no).finally(() => {
        this.reading = undefined;
        this.watcher?.ended(no);
      });
    }
    return this.reading;
  }

  /** A read numbered above `n` begins now, or after the one under way (which began before it). Never rejects. */
  readAfter(n: number): void {
    if (this.reads > n) return;
    if (this.reading) void this.reading.catch(() => undefined).then(() => this.readAfter(n));
    else void this.start().catch(() => undefined);
  }

  /** The read under way, if any (tests wait for it). */
  async refreshed(): Promise<void> {
    await this.reading?.catch(() => undefined);
  }

  /** Every user the first time (oldest first); then the newest, down to the newest the last read saw less the margin. */
  private async read(started: number, asks: number, no: number): Promise<void> {
    const known = this.known ?? new CoreKnowledge();
    let newest = this.newest;
    let read = 0;
    const take = (users: CoreUser[]): void => {
      read += users.length;
      this.watcher?.page(users, no);
      for (const user of users) {
        known.addUser(user, this.core.tenantId);
        for (const m of user.loginMethods) newest = Math.max(newest, m.timeJoined);
      }
    };
    const margin = this.margin();
    const floor = this.newest - margin;
    if (!this.known) await this.pages(undefined, take);
    else if (this.madeTokens) {
      try {
        const slices = refreshReaders(this.lastRead);
        await readSince(this.core, floor, margin + this.maxAgeMs, slices, take, refreshPage(this.lastRead, slices));
      } catch (err) {
        if (!(err instanceof CoreHttpError && err.status === 400)) throw err;
        this.madeTokens = false; // a core whose tokens are not "<id>;<time>": newest first, in one reader
        await this.pages(floor, take);
      }
    } else await this.pages(floor, take);
    this.known = known;
    this.newest = newest;
    this.lastRead = read;
    this.readFrom = started;
    this.readAsks = asks;
  }

  /** Pages in one reader: every user oldest first, or (from `floor`) newest first down to `floor`. */
  private async pages(floor: number | undefined, take: (users: CoreUser[]) => void): Promise<void> {
    let token: string | undefined;
    do {
      const page = await this.core.listUsers({
        limit: USERS_PAGE,
        paginationToken: token,
        ...(floor !== undefined ? { timeJoinedOrder: 'DESC' } : {}),
      });
      take(page.users);
      const older = floor !== undefined && page.users.some((u) => u.timeJoined < floor);
      token = older ? undefined : page.nextPaginationToken;
    } while (token);
  }
}

/** Sees the reads of a FreshKnowledge: each page as it comes (with its read's number), and each read's end. */
export interface KnowledgeWatcher {
  page(users: CoreUser[], read: number): void;
  ended(read: number): void;
}
