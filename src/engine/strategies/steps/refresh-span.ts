// How much a refresh of the steps path's knowledge of the core reads (knowledge.ts): the users who joined since the
// newest one the last refresh saw, less a commit margin for those still committing, in one reader or a few. What
// the core lists is its CPU taken from the imports on a shared machine, so a refresh reads no more than it must.
// Invariant: the margin stays between MIN_COMMIT_MARGIN_MS and COMMIT_MARGIN_MS, and is the widest when the core
// answered nothing lately.
import { USERS_PAGE } from '../staged/slices.js';

/**
 * Users created in the core this long before the newest one seen may still be committing: read again. The reference
 * stamps a user's join time after its request arrived and before its transaction takes a connection
 * (EmailPassword.importUserWithPasswordHash: `timeJoined = System.currentTimeMillis()`, then the sign-up's
 * transaction), and commits before it answers: the lag is at most the time the core takes to answer a request then
 * (the pool's wait and a few inserts). The margin is twice the longest answer the run had from the core in the last
 * 10 s (commitMargin), at least MIN_COMMIT_MARGIN_MS and at most COMMIT_MARGIN_MS (also when nothing answered lately).
 * Every refresh re-reads the margin, and a listed user costs the reference about 0.1 ms of CPU (a page of 500 users
 * 40-47 ms, an empty page 1.5 ms): with 2 s always, a run at 270 users/s made the core list about 900 users a refresh
 * where about 250 were new, and each of its requests took 10-35% longer than the bare script's on 2 cores.
 */
export const COMMIT_MARGIN_MS = 2_000;
export const MIN_COMMIT_MARGIN_MS = 500;

/** The commit margin for the longest answer of late (undefined: none came): see COMMIT_MARGIN_MS. */
export function commitMargin(longestAnswerMs: number | undefined): number {
  if (longestAnswerMs === undefined) return COMMIT_MARGIN_MS;
  return Math.min(COMMIT_MARGIN_MS, Math.max(MIN_COMMIT_MARGIN_MS, Math.ceil(2 * longestAnswerMs)));
}

/** Readers of a refresh at most. */
const REFRESH_SLICES = 3;

/** One reader a page of users the last refresh read (the margin re-read each time), at most REFRESH_SLICES. */
export function refreshReaders(lastRead: number): number {
  return Math.min(REFRESH_SLICES, Math.max(1, Math.ceil(lastRead / USERS_PAGE)));
}

/**
 * The users a page of a refresh's reader: a whole page for one reader (it reads to the newest); with more, its share
 * of what the last refresh read and a quarter more. A reader's page lists users past its slice's end that the next
 * reader lists again: with whole pages, two readers of a refresh of 600 users made the core list 1,000.
 */
export function refreshPage(lastRead: number, slices: number): number {
  if (slices <= 1) return USERS_PAGE;
  return Math.min(USERS_PAGE, Math.ceil((lastRead * 1.25) / slices) + 16);
}
