// Finding a source user in the core by account info (email, phone, third-party id), for verify.
// Invariant: read only: nothing is written to the core.
import type { CoreClient, CoreUser } from '../../../core-client/types.js';
import type { Step } from '../../plan/steps.js';

export const norm = (email: string) => email.trim().toLowerCase();

/** Whether the core user holds the login method a first-factor step creates. */
export function hasMethod(user: CoreUser, step: Step): boolean {
  return methodOf(user, step) !== undefined || !FIRST_FACTOR_KINDS.has(step.kind);
}

const FIRST_FACTOR_KINDS = new Set<Step['kind']>(['import-password', 'thirdparty-signinup', 'passwordless-signinup']);

/** The user's login method a first-factor step created, if it has it. */
export function methodOf(user: CoreUser, step: Step): CoreUser['loginMethods'][number] | undefined {
  switch (step.kind) {
    case 'import-password':
      return user.loginMethods.find((m) => m.recipeId === 'emailpassword' && m.email === norm(step.email));
    case 'thirdparty-signinup':
      return user.loginMethods.find(
        (m) => m.recipeId === 'thirdparty' && m.thirdParty?.id === step.thirdPartyId && m.thirdParty.userId === step.thirdPartyUserId,
      );
    case 'passwordless-signinup':
      return user.loginMethods.find(
        (m) =>
          m.recipeId === 'passwordless' && (step.email !== undefined ? m.email === norm(step.email) : m.phoneNumber === step.phoneNumber),
      );
    default:
      return undefined;
  }
}

/** Key of a login method's account info, for the lookup index. */
function accountKey(step: Step): string | undefined {
  if (step.kind === 'import-password') return `emailpassword:${norm(step.email)}`;
  if (step.kind === 'thirdparty-signinup') return `thirdparty:${step.thirdPartyId}:${step.thirdPartyUserId}`;
  if (step.kind === 'passwordless-signinup')
    return step.email !== undefined ? `passwordless:${norm(step.email)}` : `passwordless:${step.phoneNumber}`;
  return undefined;
}

export type AccountLookup = (step: Step) => Promise<CoreUser | undefined>;

/**
 * Finds users by account info: the `/users` dashboard search first (one call on a core that supports it),
 * then, if that does not find the user, an index of every user built once from the `/users` pages (cores
 * that ignore the search parameters answer with the first page instead).
 */
export function createAccountLookup(core: CoreClient): AccountLookup {
  let index: Promise<Map<string, string>> | undefined;
  const build = async (): Promise<Map<string, string>> => {
    const map = new Map<string, string>();
    let token: string | undefined;
    do {
      const page = await core.listUsers({ limit: 500, paginationToken: token });
      for (const u of page.users) {
        for (const m of u.loginMethods) {
          if (m.recipeId === 'emailpassword' && m.email) map.set(`emailpassword:${m.email}`, u.id);
          if (m.recipeId === 'thirdparty' && m.thirdParty) map.set(`thirdparty:${m.thirdParty.id}:${m.thirdParty.userId}`, u.id);
          if (m.recipeId === 'passwordless') {
            if (m.email) map.set(`passwordless:${m.email}`, u.id);
            if (m.phoneNumber) map.set(`passwordless:${m.phoneNumber}`, u.id);
          }
        }
      }
      token = page.nextPaginationToken;
    } while (token);
    return map;
  };
  return async (step) => {
    let found: CoreUser[] = [];
    if (step.kind === 'import-password' || step.kind === 'thirdparty-signinup')
      found = (await core.listUsers({ email: [step.email] })).users;
    else if (step.kind === 'passwordless-signinup') {
      found = (await core.listUsers(step.phoneNumber !== undefined ? { phone: [step.phoneNumber] } : { email: [step.email!] })).users;
    }
    const hit = found.find((u) => hasMethod(u, step));
    if (hit) return hit;
    const key = accountKey(step);
    if (key === undefined) return undefined;
    index ??= build();
    const id = (await index).get(key);
    if (id === undefined) return undefined;
    const r = await core.getUserById(id);
    return r.status === 'OK' ? r.user : undefined;
  };
}
