// drained(): the runner's backpressure on stderr (a --json-events reader slower than the run).
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { drained } from '../../src/engine/report.js';

describe('drained', () => {
  it('resolves at once below the high-water mark, and only once the backlog is written above it', async () => {
    const written: string[] = [];
    let release: (() => void) | undefined;
    const slow = new Writable({
      highWaterMark: 16,
      write(chunk: Buffer, _enc, cb) {
        release = () => {
          written.push(chunk.toString());
          cb();
        };
      },
    });
    let done = false;
    await drained(slow).then(() => (done = true));
    expect(done).toBe(true);
    slow.write('0123456789');
    slow.write('0123456789');
    done = false;
    const wait = drained(slow).then(() => (done = true));
    await new Promise((r) => setImmediate(r));
    expect(done).toBe(false);
    while (!done) {
      release?.();
      await new Promise((r) => setImmediate(r));
    }
    await wait;
    expect(written).toEqual(['0123456789', '0123456789']);
  });

  it('resolves when the stream is destroyed instead of draining', async () => {
    const stuck = new Writable({ highWaterMark: 4, write: () => undefined });
    stuck.write('0123456789');
    const wait = drained(stuck);
    stuck.destroy();
    await expect(wait).resolves.toBeUndefined();
  });
});
