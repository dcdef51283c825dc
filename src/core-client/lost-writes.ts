// Writes whose answer was lost, counted per piece of work (issue 20): the client retries a write that met a 5xx,
// a reset or a timeout after it was sent, and the retry then meets the state the first attempt made ("already
// exists", "already linked"). Only the caller knows whether that state is its own, so the request pipeline notes
// every such attempt in the tally of the work it belongs to: the caller sends through `core.countingLost(tally)`,
// a view of the client carrying its tally, so concurrent users never mix. (An AsyncLocalStorage did this before:
// on Node 20 it hooks every promise of the process, and the steps path spent about a fifth of its CPU on it.)

export interface LostWrites {
  /** Attempts of a write (not a GET) that may have been applied although no clear answer came back. */
  lost: number;
}

/**
 * Network failures where the request never reached the core (nothing can have been applied). Every other
 * transient failure (a reset, a broken pipe, a timeout, a socket closed mid-answer) may come after the core applied it.
 */
const NOT_SENT = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EAI_AGAIN', 'ENOTFOUND']);

/** Called by the request pipeline for an attempt that ended without a clear answer (a status, or a network error). */
export function noteUnclearAttempt(tally: LostWrites | undefined, method: string, outcome: { status: number } | { error: unknown }): void {
  if (method === 'GET' || !tally) return;
  if ('status' in outcome) {
    if (outcome.status >= 500) tally.lost += 1;
    return;
  }
  const code = (outcome.error as { code?: string } | undefined)?.code;
  if (code === undefined || !NOT_SENT.has(code)) tally.lost += 1;
}
