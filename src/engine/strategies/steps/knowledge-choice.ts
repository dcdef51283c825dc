// `--via steps`: which way a run learns what the core holds, decided once, by sizes and not by how fast the machine
// is: the core's users (GET /users/count) against the run's users. A core small beside the run is read once in bulk
// and kept fresh from its newest end (knowledge.ts); a large one (or one that does not say its size) is looked up
// user by user. The run says which (the `core-knowledge` event).
// Invariant: which way a run learns the core is decided by sizes only, so its requests do not depend on the machine's
// load.
import type { CoreClient } from '../../../core-client/types.js';
import { coreSize, LISTING_WORTH_IT } from '../bulk/knowledge.js';
import type { RunEvent } from '../../events.js';
import type { Step } from '../../plan/steps.js';
import { FreshKnowledge } from './knowledge.js';
import { commitMargin } from './refresh-span.js';

/** How a `--via steps` run learns what the core holds, and the line that says so. */
export function describeKnowledge(coreUsers: number | undefined, runUsers: number, listed: boolean): string {
  const n = (x: number) => x.toLocaleString('en-US');
  if (coreUsers === undefined) return 'the core did not say how many users it holds: each user is looked up before it is written';
  const size = `the core holds ${n(coreUsers)} users`;
  const per = `${LISTING_WORTH_IT} for each of the run's ${n(runUsers)}`;
  return listed
    ? `${size}, at most ${per}: read once in bulk and kept fresh, each user is looked up only when it is there`
    : `${size}, more than ${per}: each user is looked up before it is written (reading them all would cost more)`;
}

/**
 * `--via steps`: the look-up skipper, decided at the first user that needs it (GET /users/count, one request): a
 * core at most LISTING_WORTH_IT times the run's users is read in bulk; a larger one, or one that does not say its
 * size, is looked up user by user. `emit` gets the decision; `listed()` is the knowledge once it is read in bulk.
 * `longestAnswerMs`: the longest the core took to answer lately (the engine's), for the refreshes' commit margin.
 */
export function knownAbsentForSteps(
  core: CoreClient,
  usersToMigrate: number,
  emit: (e: Extract<RunEvent, { type: 'core-knowledge' }>) => void = () => {},
  longestAnswerMs: () => number | undefined = () => undefined,
): StepsKnowledge {
  let knowledge: Promise<FreshKnowledge | undefined> | undefined;
  let decided: FreshKnowledge | undefined;
  const absent = async (step: Step): Promise<boolean> => {
    knowledge ??= coreSize(core, usersToMigrate).then(({ count, manyTimesLarger }) => {
      const listed = count !== undefined && !manyTimesLarger;
      emit({
        type: 'core-knowledge',
        listed,
        ...(count !== undefined ? { coreUsers: count } : {}),
        runUsers: usersToMigrate,
        detail: describeKnowledge(count, usersToMigrate, listed),
        at: Date.now(),
      });
      const margin = () => commitMargin(longestAnswerMs());
      return listed ? (decided = new FreshKnowledge(core, { margin })) : undefined;
    });
    const k = await knowledge;
    return k ? k.absent(step) : false;
  };
  return Object.assign(absent, { listed: () => decided });
}

/** The look-up skipper of a steps run, and the knowledge it keeps once the run has decided to read the core in bulk. */
export type StepsKnowledge = ((step: Step) => Promise<boolean>) & { listed(): FreshKnowledge | undefined };
