// Which TOTP codes earlier `verify` runs already spent, so a later run never offers the core a code it has seen
// (the core refuses a replayed code, and every refusal counts towards the user's lockout). Kept beside the run's
// journal as `<journal>.totp-checks.ndjson`, 0600: a hash of (user id, secret) and the time step, never a code or a
// secret. Lines past the core's replay window (period * (2 * skew + 1) seconds) are forgotten on load.
// Invariant: no code or secret is stored, only a hash of (user id, secret) and the time step, in a 0600 file.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { openPrivate } from '../../files/private.js';
import { totpAt } from '../../shared/totp-code.js';

interface UsedStep {
  device: string;
  counter: number;
  until: number;
}

export interface TotpCheckLog {
  /** A code for a time step the device accepts now and nobody spent, or undefined when every one is spent. */
  pick(userId: string, secret: string, period: number, skew: number, nowMs?: number): { code: string; counter: number } | undefined;
  /** Record that the code of this time step was offered to the core. */
  spend(userId: string, secret: string, counter: number, period: number, skew: number, nowMs?: number): Promise<void>;
  /** Seconds until every time step a device accepts now is free again (for the message). */
  waitSeconds(period: number, skew: number): number;
}

const deviceOf = (userId: string, secret: string): string =>
  createHash('sha256').update(`${userId}\u0000${secret}`).digest('hex').slice(0, 32);

export async function openTotpCheckLog(path: string): Promise<TotpCheckLog> {
  const now = Date.now();
  const used = new Map<string, Set<number>>();
  if (existsSync(path)) {
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      if (line === '') continue;
      try {
        const u = JSON.parse(line) as UsedStep;
        if (u.until > now) (used.get(u.device) ?? used.set(u.device, new Set()).get(u.device)!).add(u.counter);
      } catch {
        // a torn line: that step is simply not known as spent
      }
    }
  }
  return {
    pick(userId, secret, period, skew, nowMs = Date.now()) {
      const spent = used.get(deviceOf(userId, secret));
      const current = Math.floor(nowMs / 1000 / period);
      // The core accepts current - skew .. current + skew; the newest steps stay valid longest.
      for (let d = skew; d >= -skew; d--) {
        const counter = current + d;
        if (!spent?.has(counter)) return { code: totpAt(secret, counter, period), counter };
      }
      return undefined;
    },
    async spend(userId, secret, counter, period, skew, nowMs = Date.now()) {
      const device = deviceOf(userId, secret);
      (used.get(device) ?? used.set(device, new Set()).get(device)!).add(counter);
      const fh = await openPrivate(path, 'a');
      try {
        await fh.appendFile(JSON.stringify({ device, counter, until: nowMs + period * (2 * skew + 2) * 1000 } satisfies UsedStep) + '\n');
      } finally {
        await fh.close();
      }
    },
    waitSeconds: (period, skew) => period * (2 * skew + 1),
  };
}
