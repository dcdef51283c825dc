// The record of exchanged tokens, kept in the core so every app instance sees it: one user role per token, named
// `auth-migrate:exchanged:<exp>:<sha256 of the token's header.payload>`, created with PUT /recipe/role. The core
// creates a role with an insert that does nothing when the role exists, inside a transaction, and answers
// `createdNewRole` (UserRoles.createNewRoleOrModifyItsPermissions): of two instances claiming the same token at once,
// the core's unique key lets exactly one see `createdNewRole: true`. User metadata would not do: its PUT merges and
// answers the merged object either way, so two writers both believe they were first. The hash covers header and
// payload, not the signature, so re-encoding the signature (base64 padding bits, ECDSA's two valid `s`) cannot make
// a used token look new. `exp` in the name lets an operator remove records of expired tokens (UserRoles.deleteRole).
import { createHash } from 'node:crypto';
import UserRoles from 'supertokens-node/recipe/userroles';

export const EXCHANGED_ROLE_PREFIX = 'auth-migrate:exchanged:';

export function exchangedRole(signingInput: string, exp: number): string {
  return `${EXCHANGED_ROLE_PREFIX}${exp}:${createHash('sha256').update(signingInput).digest('base64url')}`;
}

/** True for the first claim of this token anywhere; false when any instance claimed it before. */
export async function claimToken(role: string, userContext: Record<string, unknown> | undefined): Promise<boolean> {
  try {
    const out = await UserRoles.createNewRoleOrAddPermissions(role, [], userContext);
    return out.createdNewRole;
  } catch (err) {
    if (/UserRoles\.init/i.test((err as Error).message)) {
      throw new Error('exchangeLegacySession records exchanged tokens in the core as user roles: add UserRoles.init() to recipeList');
    }
    throw err;
  }
}
