// SIGINT/SIGTERM for a headless run: the first stops the run safely; a later one only says what it waits for.
// Invariant: every signal asks the same safe stop; none ends the process itself.
export interface SignalGuard {
  remove(): void;
}

export function stopOnSignals(say: (line: string) => void, stop: () => void): SignalGuard {
  let firstAt = 0;
  let toldAgain = false;
  const handler = (signal: NodeJS.Signals): void => {
    const now = Date.now();
    if (firstAt === 0) {
      firstAt = now;
      say(`${signal} received`);
    } else if (!toldAgain && now - firstAt > 1000) {
      // (A re-raise within the same instant, e.g. by a child-process cleanup hook, is not the operator.)
      toldAgain = true;
      say(`${signal}: already stopping; waiting for in-flight steps (each retries for at most about a minute)`);
    }
    stop();
  };
  return onStopSignals(handler);
}

/**
 * While nothing has been written yet (the validation pass): the first SIGINT or SIGTERM ends the process at once
 * with exit 130, saying so and how to start again.
 */
export function exitOnSignals(say: (line: string) => void, resumeCommand: string | undefined): SignalGuard {
  const handler = (signal: NodeJS.Signals): void => {
    say(`${signal} received while reading the sources: nothing was written` + (resumeCommand ? `; to run again: ${resumeCommand}` : ''));
    process.exit(130);
  };
  return onStopSignals(handler);
}

/** `handler` on SIGINT and SIGTERM, until removed. */
function onStopSignals(handler: (signal: NodeJS.Signals) => void): SignalGuard {
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    remove() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
