// How the reducer hands each screen its own actions: a group of actions is named by the prefixes of their types
// (`validation-…`, `preview-…`), and one list of prefixes gives both the group's type and its guard, so the two
// cannot disagree and each screen's switch stays exhaustive.
import type { Action } from './types.js';

/** The actions whose type starts with one of the prefixes P and a dash. */
export type ActionsNamed<P extends string> = Extract<Action, { type: `${P}-${string}` }>;

export function actionsNamed<P extends string>(prefixes: readonly P[]): (a: Action) => a is ActionsNamed<P> {
  return (a): a is ActionsNamed<P> => prefixes.some((p) => a.type.startsWith(`${p}-`));
}
