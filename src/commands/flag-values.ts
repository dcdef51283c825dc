// Small parsers of command-line values, for the commands only: the engine's typed InvalidSetting turned into a
// usage message naming the flag, on/off switch pairs over a profile, and the slice flags (--skip, --limit, --only).
import { InvalidSetting, UsageError } from '../errors.js';
import type { SliceOptions } from '../engine/plan/slice.js';

/** `parse()` of a flag's value; the engine's InvalidSetting becomes a UsageError that names `flag`. */
export function usage<T>(flag: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof InvalidSetting) throw new UsageError(`${flag} ${err.problem}`);
    throw err;
  }
}

/**
 * A profile's on/off setting as the command line leaves it: `--NAME` on, `--no-NAME` off (Node 20's parseArgs has no
 * allowNegative, so both are declared), else the profile's, else off.
 */
export function profileSwitch(name: string, on: boolean | undefined, off: boolean | undefined, profile: boolean | undefined): boolean {
  if (on && off) throw new UsageError(`--${name} and --no-${name} contradict each other: give one of them`);
  if (on) return true;
  if (off) return false;
  return profile ?? false;
}

/** The slice of --skip, --limit and --only (ids, repeated or comma-separated). */
export function parseSlice(values: { skip?: string; limit?: string; only?: string[] }): SliceOptions {
  const count = (name: string, v: string | undefined): number | undefined => {
    if (v === undefined) return undefined;
    if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number (got "${v}")`);
    return Number(v);
  };
  const only = values.only
    ?.flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return { skip: count('skip', values.skip), limit: count('limit', values.limit), ...(only && only.length ? { only } : {}) };
}
