// JSON-lines renderer: one event per line, for machines (`run --json-events`).
// Invariant: one event, one line of JSON.
import type { RunEvent } from '../events.js';

export function createJsonLinesRenderer(write: (line: string) => void): (event: RunEvent) => void {
  return (event) => write(JSON.stringify(event));
}
