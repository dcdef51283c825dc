// Preloaded (NODE_OPTIONS=--import) into a child the bench cannot pass --cpu-prof to (NODE_OPTIONS refuses it):
// profiles the whole process with the in-process inspector and writes a .cpuprofile to BENCH_CPU_PROF_DIR at exit.
import { Session } from 'node:inspector';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.BENCH_CPU_PROF_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 1000 });
  session.post('Profiler.start');
  process.on('exit', () => {
    // The same-thread inspector answers synchronously, so this completes inside the exit handler.
    session.post('Profiler.stop', (err, result) => {
      if (err) return;
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
