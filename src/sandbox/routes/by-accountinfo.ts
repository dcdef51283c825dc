// GET /users/by-accountinfo (tenant-specific): the primary users holding a login method with the given email,
// phone number or third-party id in the request's tenant, as the reference core's ListUsersByAccountInfoAPI and
// AuthRecipe.getUsersByAccountInfo answer it (external ids where mapped; doUnionOfAccountInfo required).
import type { Ctx, Route } from '../context.js';
import { badRequest, ok, query } from '../http.js';
import { key, type LoginMethod } from '../store/index.js';
import { normaliseEmail, normalisePhone, primaryOf, userJson } from '../users.js';

function matching(ctx: Ctx, k: string): Set<string> {
  const primaries = new Set<string>();
  for (const id of ctx.state.byAccountInfo.get(k)) {
    const m = ctx.state.maps.users.get(id);
    if (m && m.app === ctx.app && m.tenantIds.includes(ctx.tenant)) primaries.add(primaryOf(ctx, m).id);
  }
  return primaries;
}

function byAccountInfo(ctx: Ctx) {
  const email = query(ctx.query, 'email', true);
  const phone = query(ctx.query, 'phoneNumber', true);
  const tpId = query(ctx.query, 'thirdPartyId', true);
  const tpUserId = query(ctx.query, 'thirdPartyUserId', true);
  const union = query(ctx.query, 'doUnionOfAccountInfo');
  if (union !== 'true' && union !== 'false') throw badRequest("'doUnionOfAccountInfo' should be either 'true' or 'false'");
  if ((tpId === undefined) !== (tpUserId === undefined)) {
    throw badRequest("If 'thirdPartyId' is provided, 'thirdPartyUserId' must also be provided, and vice versa");
  }
  const sets: Set<string>[] = [];
  if (email !== undefined) sets.push(matching(ctx, key(ctx.app, 'e', normaliseEmail(email))));
  if (phone !== undefined) sets.push(matching(ctx, key(ctx.app, 'p', normalisePhone(phone))));
  if (tpId !== undefined) sets.push(matching(ctx, key(ctx.app, 't', tpId, tpUserId!)));
  let ids: string[];
  if (sets.length === 0) ids = [];
  else if (union === 'true') ids = [...new Set(sets.flatMap((s) => [...s]))];
  else ids = [...sets[0]!].filter((id) => sets.every((s) => s.has(id)));
  const users = ids.map((id) => ctx.state.maps.users.get(id)).filter((u): u is LoginMethod => u !== undefined);
  // The reference sorts by time joined (AuthRecipe.getUsersByAccountInfo).
  users.sort((a, b) => ctx.state.groupTimeJoined(a) - ctx.state.groupTimeJoined(b));
  return ok({ users: users.map((u) => userJson(ctx, u)) });
}

export const byAccountInfoRoutes: Route[] = [{ path: '/users/by-accountinfo', scope: 'tenant', methods: { GET: byAccountInfo } }];
