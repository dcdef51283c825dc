// One snapshot of a core's users for "the core as it was before" checks (kill, rerun, rollback): every user, or the
// ones a test owns on a shared core, in a comparable form. Two snapshots are equal when no user, login method,
// verified flag, mapping, TOTP device, metadata or role differs.
import type { CoreClient, CoreUser } from '../../src/core-client/types.js';
import { allUsers } from './cli.js';

export interface CoreStateOptions {
  /** Only these users (a shared core holds other tests' users too). */
  mine?: (u: CoreUser) => boolean;
  /** Read TOTP devices (default true; false where the core does not offer `mfa`). */
  devices?: boolean;
}

/** The users, sorted, each one JSON line: id, primary, login methods, TOTP devices, metadata and roles. */
export async function coreState(core: CoreClient, options: CoreStateOptions = {}): Promise<string[]> {
  const { mine = () => true, devices: withDevices = true } = options;
  const out: string[] = [];
  for (const u of (await allUsers(core)).filter(mine)) {
    const methods = u.loginMethods
      .map((m) => [m.recipeId, m.recipeUserId, m.email, m.phoneNumber, m.thirdParty?.id, m.thirdParty?.userId, m.verified].join('|'))
      .sort();
    const devices = withDevices ? (await core.listTotpDevices(u.id)).devices.map((d) => `${d.name}/${d.period}/${d.skew}`).sort() : [];
    const { metadata } = await core.getUserMetadata(u.id);
    const { roles } = await core.getUserRoles(u.id);
    out.push(JSON.stringify({ id: u.id, primary: u.isPrimaryUser, methods, devices, metadata, roles: [...roles].sort() }));
  }
  return out.sort();
}
