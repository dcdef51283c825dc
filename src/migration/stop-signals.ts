// SIGINT/SIGTERM for a headless run: the first stops the run safely; a later one only says what it waits for.
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
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    remove() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
