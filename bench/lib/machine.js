// What the numbers were measured on: they mean little without the machine beside them (and its load beside each turn).
import os from 'node:os';
import { execFileSync } from 'node:child_process';

export function machineInfo() {
  const cpus = os.cpus();
  let commit;
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    commit = undefined;
  }
  return {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    cpus: cpus.length,
    cpuModel: cpus[0]?.model?.trim(),
    memoryGb: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
    commit,
  };
}

/** The machine's load now: its 1-minute load average (two decimals). */
export function loadNow() {
  return Math.round(os.loadavg()[0] * 100) / 100;
}

/** `fn` run with the machine's 1-minute load read before and after it: `{ result, load: { before, after } }`. */
export async function withLoad(fn) {
  const before = loadNow();
  const result = await fn();
  return { result, load: { before, after: loadNow() } };
}

/** A load as the tables print it: "load 3.1 -> 4.2". */
export const fmtLoad = (load) => (load ? `load ${load.before.toFixed(1)} -> ${load.after.toFixed(1)}` : 'load ?');
