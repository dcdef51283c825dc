// Account-linking conflict rule shared by linking and by email/phone changes: the same account info held
// by a different primary user in one of the same tenants.
import type { Ctx } from './context.js';
import { key, type LoginMethod } from './store/index.js';

export type ConflictKind = 'email' | 'phone' | 'thirdparty';

export const CONFLICT_TEXT: Record<ConflictKind, string> = {
  email: "This user's email is already associated with another user ID",
  phone: "This user's phone number is already associated with another user ID",
  thirdparty: "This user's third party login is already associated with another user ID",
};

type AccountInfo = Pick<LoginMethod, 'email' | 'phoneNumber' | 'thirdParty'>;

export function findConflict(
  ctx: Ctx,
  info: AccountInfo,
  tenants: string[],
  exceptPrimary: string | undefined,
): { primaryId: string; kind: ConflictKind } | undefined {
  const probes: Array<[ConflictKind, string]> = [];
  if (info.email) probes.push(['email', key(ctx.app, 'e', info.email)]);
  if (info.phoneNumber) probes.push(['phone', key(ctx.app, 'p', info.phoneNumber)]);
  if (info.thirdParty) probes.push(['thirdparty', key(ctx.app, 't', info.thirdParty.id, info.thirdParty.userId)]);
  for (const [kind, k] of probes) {
    for (const id of ctx.state.byAccountInfo.get(k)) {
      const m = ctx.state.maps.users.get(id);
      if (!m?.primaryUserId || m.primaryUserId === exceptPrimary) continue;
      if (m.tenantIds.some((t) => tenants.includes(t))) return { primaryId: m.primaryUserId, kind };
    }
  }
  return undefined;
}
