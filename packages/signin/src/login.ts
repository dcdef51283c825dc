// The email-password login a sign-in is about, and its legacy entry: found through the SDK (the login's user id is
// the external id when mapped), the entry's MAC checked against the login's email in the core (protocol/mac.ts).
import supertokens from 'supertokens-node';
import type { RecipeInterface } from 'supertokens-node/recipe/emailpassword/types';
import UserMetadata from 'supertokens-node/recipe/usermetadata';
import { entryMacValid } from './protocol/mac.js';
import {
  endingUpdate,
  LEGACY_ENTRY_KEY,
  readLegacyDone,
  readLegacyEntry,
  type LegacyEndedVia,
  type LegacyEntry,
} from './protocol/entry.js';

export type VerifyInput = Parameters<RecipeInterface['verifyCredentials']>[0];
export type VerifyOutput = Awaited<ReturnType<RecipeInterface['verifyCredentials']>>;
export type UserContext = VerifyInput['userContext'];

export interface Login {
  /** The login's user id (the metadata key of its entry). */
  userId: string;
  recipeUserId: ReturnType<typeof supertokens.convertToRecipeUserId>;
  /** The user's primary id (roles, reset emails). */
  primaryId: string;
  /** The login's email as the core holds it: the MAC is checked against it. */
  email: string;
}

type User = Awaited<ReturnType<typeof supertokens.listUsersByAccountInfo>>[number];

export function loginIn(users: User[], email: string, tenantId: string): Login | undefined {
  let login: Login | undefined;
  for (const u of users) {
    const lm = u.loginMethods.find((m) => m.recipeId === 'emailpassword' && m.hasSameEmailAs(email) && m.tenantIds.includes(tenantId));
    if (lm) login = { userId: lm.recipeUserId.getAsString(), recipeUserId: lm.recipeUserId, primaryId: u.id, email: lm.email ?? email };
  }
  return login;
}

export async function findLogin(input: VerifyInput): Promise<Login | undefined> {
  const users = await supertokens.listUsersByAccountInfo(input.tenantId, { email: input.email }, false, input.userContext);
  return loginIn(users, input.email, input.tenantId);
}

export async function metadataOf(userId: string, userContext: UserContext): Promise<Record<string, unknown>> {
  return (await UserMetadata.getUserMetadata(userId, userContext)).metadata as Record<string, unknown>;
}

export type EntryFound = { entry: LegacyEntry } | { invalid: string; algorithm: string } | undefined;

/** The login's entry when it is well formed and its MAC is right; else why it is ignored, or undefined when none. */
export function checkedEntry(metadata: Record<string, unknown>, secret: string, email: string): EntryFound {
  const shape = readLegacyEntry(metadata);
  if (!shape) return undefined;
  const raw = metadata[LEGACY_ENTRY_KEY] as { algorithm?: unknown };
  const algorithm = typeof raw?.algorithm === 'string' ? raw.algorithm.slice(0, 40) : 'unknown';
  if ('invalid' in shape) return { invalid: shape.invalid, algorithm };
  if (!entryMacValid(secret, shape.entry, email))
    return { invalid: "the entry's MAC does not match (changed, copied from another login, or signed with another secret)", algorithm };
  return shape;
}

/** The source id of the login's entry or of its done marker: what its placeholder is derived from. */
export function sourceIdIn(metadata: Record<string, unknown>): string | undefined {
  const shape = readLegacyEntry(metadata);
  if (shape && 'entry' in shape) return shape.entry.sourceId;
  return readLegacyDone(metadata)?.sourceId;
}

/** End a waiting entry (well formed, MAC or not): the algorithm it had, or undefined when there was none. */
export async function endEntry(userId: string, via: LegacyEndedVia, userContext: UserContext): Promise<string | undefined> {
  const shape = readLegacyEntry(await metadataOf(userId, userContext));
  if (!shape || !('entry' in shape)) return undefined;
  await UserMetadata.updateUserMetadata(userId, endingUpdate(shape.entry, via, Date.now()) as never, userContext);
  return shape.entry.algorithm;
}
