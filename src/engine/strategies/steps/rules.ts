// Every step kind in one table: how it is described to a person and how many calls it makes, the request it sends, how to recognise "already done by us" in any answer
// (ids may come back as the SuperTokens id or as the external id), how to find its effect in the core after
// an attempt that ended without a clear answer, and what it promises about an object it finds already there.
// execute.ts applies the one exactly-once rule to all of them; a new step kind is a new entry here
// (docs/migration.md, "Adding a step kind"). The first factors' rules are in first-factor-rules.ts.
// Invariant: every step kind has exactly one entry; execute.ts applies the same exactly-once rule to each.
import type { CoreClient, LoginMethod } from '../../../core-client/types.js';
import { importPassword, markVerified, norm, passwordlessSignInUp, replacePassword, thirdPartySignInUp } from './first-factor-rules.js';
import { type StepOutcome, type UserIds, done, fail, idsOf, resolveRef } from './ids.js';
import { foreign, sameJson, userHolds, userOf } from './answer-checks.js';
import type { Step, StepKind, StepRef } from '../../plan/steps.js';
import { SYNC_RULES } from '../../sync/step-rules.js';
import { LEGACY_DONE_KEY, LEGACY_ENTRY_KEY } from 'auth-migrate-signin/protocol';

/** What a lookup found of the step's effect in the core; undefined when it is not (yet) there. */
export type Found =
  | {
      /** Ids the step produced (journalled). */
      ids: Record<string, string>;
      /** The login method found, for the checks of `complete`. */
      method?: LoginMethod;
      /** The user the external id names is there, with other account info than the export's (see UserIds.changed). */
      changed?: string;
    }
  | undefined;

export interface StepRule<S extends Step> {
  /** One line for a person: what the step does and the requests it sends, with no password hash, secret or code. */
  describe: (step: S) => string;
  /** How many HTTP calls the step makes when everything goes well (the dry run's count); 1 when not given. */
  calls?: number;
  /** Its requests in a few words, for the plan screen's list of calls; the kind's name when not given. */
  requests?: string;
  /**
   * Look the effect up before the first attempt. Steps that create a user do: an existing user is then left
   * unchanged (never a silent password overwrite) and a user found after our own attempt is known to be ours.
   * Steps that add to a user do when the run did not create it (thereBefore): what the app gave that user before
   * (a device, a mapping, a link, the primary flag) is then 'already', and what a lost answer leaves is the run's.
   */
  findFirst?: (step: S, ids: UserIds) => boolean;
  /** Find the step's effect in the core (used before the first attempt, after an unclear one, and after a refusal). */
  find?: (step: S, ids: UserIds, core: CoreClient) => Promise<Found>;
  /** Send the request(s) and classify the answer. */
  send: (step: S, ids: UserIds, core: CoreClient) => Promise<StepOutcome>;
  /**
   * The object is there (found before or after an attempt): check what the step promises about it and complete
   * what is missing. Undefined: nothing was missing; a success: completed; a failure: the step fails.
   */
  complete?: (step: S, found: NonNullable<Found>, ids: UserIds, core: CoreClient) => Promise<StepOutcome | undefined>;
  /** A reason to send nothing (the step's object is one the core's user no longer has, or needs nothing). */
  skipFor?: (step: S, ids: UserIds) => string | undefined;
}

type Rules = { [K in StepKind]: StepRule<Extract<Step, { kind: K }>> };

/** Roles this process already made sure of, per client (a run's client). */
const rolesMade = new WeakMap<CoreClient, Set<string>>();

export const STEP_RULES: Rules = {
  'import-password': importPassword,
  'replace-password': replacePassword,
  'thirdparty-signinup': thirdPartySignInUp,
  'passwordless-signinup': passwordlessSignInUp,

  'passwordless-add-contact': {
    requests: 'PUT /recipe/user (rid passwordless)',
    calls: 2,
    describe: (step) =>
      `add ${step.email !== undefined ? `email ${step.email}` : `phone ${step.phoneNumber}`} to the ${step.user} passwordless user unless it has it: GET /user/id, PUT /recipe/user (rid passwordless)`,
    findFirst: () => true,
    async find(step, ids, core) {
      const userId = resolveRef(ids, step.user);
      const current = await core.getUserById(userId);
      if (current.status !== 'OK') return undefined;
      const lm = current.user.loginMethods.find((m) => m.recipeId === 'passwordless' && idsOf(ids, step.user).includes(m.recipeUserId));
      if (step.email !== undefined && lm?.email === norm(step.email)) return { ids: {} };
      if (step.phoneNumber !== undefined && lm?.phoneNumber === step.phoneNumber) return { ids: {} };
      return undefined;
    },
    async send(step, ids, core) {
      const userId = resolveRef(ids, step.user);
      const r = await core.updatePasswordlessUser({
        recipeUserId: userId,
        ...(step.email !== undefined ? { email: step.email } : { phoneNumber: step.phoneNumber! }),
      });
      // The answer names nothing: the contact counts once read back (issue 31).
      if (r.status === 'OK') return readBack(await STEP_RULES['passwordless-add-contact'].find!(step, ids, core), 'PUT', '/recipe/user');
      return fail(r.status, 'reason' in r ? r.reason : describeUpdateStatus(r.status));
    },
  },

  'map-user-id': {
    requests: 'POST /recipe/userid/map',
    describe: (step) => `map the ${step.user} user to external id ${step.externalUserId}: POST /recipe/userid/map`,
    findFirst: thereBefore,
    async find(step, ids, core) {
      // The first factor already answered with the external id: the mapping exists (a rerun).
      if (idsOf(ids, step.user).includes(step.externalUserId)) return { ids: { externalUserId: step.externalUserId } };
      const existing = await core.getUserIdMapping(step.externalUserId, 'EXTERNAL');
      if (existing.status === 'OK' && idsOf(ids, step.user).includes(existing.superTokensUserId))
        return { ids: { externalUserId: step.externalUserId } };
      return undefined;
    },
    async send(step, ids, core) {
      const userId = resolveRef(ids, step.user);
      // The first factor already answered with the external id: the mapping exists (a rerun).
      if (userId === step.externalUserId) return done(false, { externalUserId: step.externalUserId });
      const r = await core.createUserIdMapping({ superTokensUserId: userId, externalUserId: step.externalUserId });
      // The answer names no id: the mapping counts once the core maps the external id to this user (issue 31), read
      // back here or, on a run that lists the core, by its next listing (the caller's: mapping-readback.ts).
      if (r.status === 'OK') {
        if (ids.mappingReadLater) return { ok: true, result: 'created', ids: { externalUserId: step.externalUserId }, unread: true };
        return readBack(await STEP_RULES['map-user-id'].find!(step, ids, core), 'POST', '/recipe/userid/map');
      }
      if (r.status === 'UNKNOWN_SUPERTOKENS_USER_ID_ERROR') {
        return fail(r.status, `the core does not know the user ${userId} to map to external id ${step.externalUserId}`);
      }
      if (!r.doesExternalUserIdExist) return fail(r.status, `user ${userId} is already mapped to another external id`);
      const existing = await core.getUserIdMapping(step.externalUserId, 'EXTERNAL');
      const other = existing.status === 'OK' ? `user ${existing.superTokensUserId}` : 'another user';
      return fail(r.status, `external id ${step.externalUserId} is already mapped to ${other}, not to ${userId}`);
    },
  },

  'verify-email': {
    requests: 'POST /recipe/user/email/verify/token + /recipe/user/email/verify',
    calls: 2,
    describe: (step) =>
      `mark ${step.email} verified on the ${step.user} user (verified in the source): POST /recipe/user/email/verify/token, POST /recipe/user/email/verify`,
    // The login's email changed in the core since the export: the old one is not the user's to verify any more.
    skipFor: (step, ids) => ids.changed.get(step.user),
    async find(step, ids, core) {
      return (await core.isEmailVerified(resolveRef(ids, step.user), norm(step.email))).isVerified ? { ids: {} } : undefined;
    },
    // The token is a credential: it stays in markVerified (never in ids, the journal or a message).
    send: (step, ids, core) => markVerified(resolveRef(ids, step.user), norm(step.email), core),
  },

  'create-primary': {
    requests: 'POST /recipe/accountlinking/user/primary',
    describe: (step) => `make the ${step.user} user primary: POST /recipe/accountlinking/user/primary`,
    findFirst: thereBefore,
    async find(step, ids, core) {
      const r = await core.getUserById(resolveRef(ids, step.user));
      return r.status === 'OK' && r.user.isPrimaryUser && idsOf(ids, step.user).includes(r.user.id)
        ? { ids: { primaryUserId: r.user.id } }
        : undefined;
    },
    async send(step, ids, core) {
      const r = await core.createPrimaryUser(resolveRef(ids, step.user));
      if (r.status === 'OK') {
        const user = userOf(r);
        if (!user?.isPrimaryUser || !userHolds(user, idsOf(ids, step.user)))
          foreign('POST', '/recipe/accountlinking/user/primary', `it names no primary user holding ${resolveRef(ids, step.user)}`);
        return done(!r.wasAlreadyAPrimaryUser, { primaryUserId: user.id });
      }
      return fail(r.status, `${r.description} (primary user ${r.primaryUserId})`);
    },
  },

  'link-accounts': {
    requests: 'POST /recipe/accountlinking/user/link',
    describe: (step) => `link the ${step.user} user to the ${step.primary} user: POST /recipe/accountlinking/user/link`,
    findFirst: thereBefore,
    async find(step, ids, core) {
      // Linked to our primary: the core answers the primary user for the recipe user, under either of its ids.
      const r = await core.getUserById(resolveRef(ids, step.user));
      return r.status === 'OK' && idsOf(ids, step.primary).includes(r.user.id) ? { ids: { primaryUserId: r.user.id } } : undefined;
    },
    async send(step, ids, core) {
      const r = await core.linkAccounts(resolveRef(ids, step.user), resolveRef(ids, step.primary));
      if (r.status === 'OK') {
        const user = userOf(r);
        if (!user || !idsOf(ids, step.primary).includes(user.id) || !userHolds(user, idsOf(ids, step.user)))
          foreign(
            'POST',
            '/recipe/accountlinking/user/link',
            `it names no primary ${resolveRef(ids, step.primary)} holding ${resolveRef(ids, step.user)}`,
          );
        return done(!r.accountsAlreadyLinked, { primaryUserId: user.id });
      }
      if (r.status === 'INPUT_USER_IS_NOT_A_PRIMARY_USER') return fail(r.status, 'the user to link to is not a primary user');
      // "Already linked to another primary" whose primary is ours (by its SuperTokens or external id): a link
      // our own earlier attempt made (cores before the 12.0.5 fix answer a repeated link this way).
      if (
        r.status === 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR' &&
        idsOf(ids, step.primary).includes(r.primaryUserId)
      ) {
        return done(false, { primaryUserId: r.primaryUserId });
      }
      return fail(r.status, `${r.description} (primary user ${r.primaryUserId})`);
    },
  },

  'import-totp': {
    requests: 'POST /recipe/totp/device/import',
    describe: (step) =>
      `import TOTP device "${step.deviceName}" (period ${step.period}, skew ${step.skew}) under the ${step.user} user: POST /recipe/totp/device/import`,
    findFirst: thereBefore,
    async find(step, ids, core) {
      // The secret cannot be read back: the device the planner named, with its period and skew, is ours (the
      // planner fixes every name up front, so a device of that name and settings is the one this step imports).
      const list = await core.listTotpDevices(resolveRef(ids, step.user));
      const same = list.devices.find((d) => d.name === step.deviceName);
      return same && same.period === step.period && same.skew === step.skew ? { ids: { deviceName: step.deviceName } } : undefined;
    },
    async send(step, ids, core) {
      const userId = resolveRef(ids, step.user);
      const r = await core.importTotpDevice({
        userId,
        deviceName: step.deviceName,
        secretKey: step.secretKey,
        period: step.period,
        skew: step.skew,
      });
      // Device names repeat across users: the device counts once listed under this user (issue 31).
      if (r.status === 'OK') {
        if (r.deviceName !== step.deviceName)
          foreign('POST', '/recipe/totp/device/import', `it names the device "${String(r.deviceName)}"`);
        return readBack(await STEP_RULES['import-totp'].find!(step, ids, core), 'POST', '/recipe/totp/device/import');
      }
      return fail(r.status, `user ${userId} already has a TOTP device named "${step.deviceName}" with other settings`);
    },
  },

  'update-metadata': {
    requests: 'GET + PUT /recipe/user/metadata',
    calls: 2, // read, then only the missing keys
    describe: (step) =>
      `add the metadata keys ${Object.keys(step.metadata).join(', ')} the core does not have yet to the ${step.user} user: GET and PUT /recipe/user/metadata`,
    async find(step, ids, core) {
      const current = (await core.getUserMetadata(resolveRef(ids, step.user))).metadata;
      return Object.keys(step.metadata).every((k) => k in current) ? { ids: {} } : undefined;
    },
    async send(step, ids, core) {
      // Only the keys the core does not have: a rerun, or a delta, never undoes what users changed since.
      const userId = resolveRef(ids, step.user);
      const current = (await core.getUserMetadata(userId)).metadata;
      const missing = Object.fromEntries(Object.entries(step.metadata).filter(([k, v]) => !(k in current) && v !== null));
      if (Object.keys(missing).length === 0) return done(false);
      await core.updateUserMetadata(userId, missing);
      // Another user's answer may hold the same values: the keys count once read back (issue 31).
      const after = (await core.getUserMetadata(userId)).metadata;
      if (!Object.entries(missing).every(([k, v]) => k in after && sameJson(after[k], v)))
        foreign('PUT', '/recipe/user/metadata', 'the metadata read back lacks what was sent');
      return done(true);
    },
  },

  'legacy-entry': {
    requests: 'GET + PUT /recipe/user/metadata',
    calls: 2, // read, then only the missing keys
    describe: (step) =>
      `keep the ${step.entry.algorithm} legacy hash for migration at first sign-in in the ${step.user} user's metadata (auth-migrate:legacy-password) if this run created its password login: GET and PUT /recipe/user/metadata`,
    async find(step, ids, core) {
      const current = (await core.getUserMetadata(resolveRef(ids, step.login))).metadata;
      return LEGACY_ENTRY_KEY in current || LEGACY_DONE_KEY in current ? { ids: {} } : undefined;
    },
    async send(step, ids, core) {
      // A login this run did not create keeps its own password: no entry that could later overwrite it.
      if (!ids.created.has(step.login)) return done(false);
      const userId = resolveRef(ids, step.login);
      const current = (await core.getUserMetadata(userId)).metadata;
      // Never over a waiting entry or over one already ended (a sign-in, a reset, an expiry since).
      if (LEGACY_ENTRY_KEY in current || LEGACY_DONE_KEY in current) return done(false);
      const r = await core.updateUserMetadata(userId, { [LEGACY_ENTRY_KEY]: step.entry });
      // The entry holds this login's own hash: an answer holding it is this request's.
      if (!sameJson((r as { metadata?: Record<string, unknown> }).metadata?.[LEGACY_ENTRY_KEY], step.entry))
        foreign('PUT', '/recipe/user/metadata', 'it holds no legacy entry for this login');
      return done(true);
    },
  },

  'create-role': {
    requests: 'PUT /recipe/role',
    describe: (step) => `create the role ${step.role} (once per run): PUT /recipe/role`,
    async send(step, _ids, core) {
      // Once per run: every user with the role plans this step, only the first sends it.
      const made = rolesMade.get(core) ?? rolesMade.set(core, new Set()).get(core)!;
      if (made.has(step.role)) return done(false);
      const r = await core.createRole(step.role);
      made.add(step.role);
      return done(r.createdNewRole);
    },
  },

  'assign-role': {
    requests: 'PUT /recipe/user/role',
    describe: (step) =>
      `give the ${step.user} user the role ${step.role}${step.tenantId ? ` in tenant ${step.tenantId}` : ''}: PUT /recipe/user/role`,
    async find(step, ids, core) {
      const on = step.tenantId ? core.forTenant(step.tenantId) : core;
      return (await on.getUserRoles(resolveRef(ids, step.user))).roles.includes(step.role) ? { ids: {} } : undefined;
    },
    async send(step, ids, core) {
      const on = step.tenantId ? core.forTenant(step.tenantId) : core;
      const r = await on.addUserRole(resolveRef(ids, step.user), step.role);
      if (r.status !== 'OK') return fail(r.status, `the core does not know the role ${step.role}`);
      // The answer names no user: the role counts once read back (issue 31).
      if (!(await on.getUserRoles(resolveRef(ids, step.user))).roles.includes(step.role))
        foreign('PUT', '/recipe/user/role', `the user does not have the role ${step.role}`);
      return done(!r.didUserAlreadyHaveRole);
    },
  },

  // `run --sync`'s kinds (a user already in the core brought to a newer export): entries of this same rule.
  ...SYNC_RULES,
};

/** A step's rule (the table is typed by kind; a step of the union reads its own entry). */
const ruleOf = (step: Step): StepRule<Step> => STEP_RULES[step.kind] as StepRule<Step>;

/** How many HTTP calls a step makes when everything goes well (used by the dry run). */
export function callCount(step: Step): number {
  return ruleOf(step).calls ?? 1;
}

/** One line for a person: what the step does, with no password hash, secret or code in it. */
export function describeStep(step: Step): string {
  return ruleOf(step).describe(step);
}

/** The requests of a step kind in a few words (the plan screen's list of calls). */
export function requestsOf(kind: StepKind): string {
  return STEP_RULES[kind].requests ?? kind;
}

/** The answer was OK: the step counts when its effect is found in the core, else the answer was not this request's. */
function readBack(found: Found, method: string, path: string): StepOutcome {
  if (!found) foreign(method, path, 'the core does not hold what it answered OK to');
  return done(true, found.ids);
}

/** The user a step adds to was there before the run (the run did not create its first login method). */
function thereBefore(step: { user: StepRef }, ids: UserIds): boolean {
  return !ids.created.has(step.user);
}

function describeUpdateStatus(status: string): string {
  if (status === 'UNKNOWN_USER_ID_ERROR') return 'the passwordless user is unknown to the core';
  if (status === 'EMAIL_ALREADY_EXISTS_ERROR') return 'another passwordless user already has this email';
  if (status === 'PHONE_NUMBER_ALREADY_EXISTS_ERROR') return 'another passwordless user already has this phone number';
  return status;
}
