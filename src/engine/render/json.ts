// JSON-lines renderer: one event per line, for machines (`run --json-events`).
import type { RunEvent } from '../events.js';

export function createJsonLinesRenderer(write: (line: string) => void): (event: RunEvent) => void {
  return (event) => write(JSON.stringify(event));
}
