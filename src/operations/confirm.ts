// What an operator confirms before a real core is written or emptied: the core (URL, app, tenant), how many users
// it holds now, and what the operation will write or remove. The sandbox is never asked about: it is a rehearsal.
// Invariant: the question always names the core by its URL, app and tenant.
import type { CoreClient } from '../core-client/types.js';
import { usersInTenant } from '../core-client/users-count.js';
import type { Target } from './target.js';

export interface Confirmation {
  action: 'run' | 'rollback' | 'sync';
  url: string;
  tenant: string;
  app: string;
  /** Users the tenant holds now (GET /users/count); undefined when the core did not say. */
  usersThere?: number;
  /** What will be written or removed, one sentence each. */
  effects: string[];
  /** What an operator types in a terminal to confirm: the core's host (so it is read, not just agreed to). */
  typed: string;
}

/** Whether writing to this target needs a confirmation: a real core does, the sandbox does not. */
export const needsConfirmation = (target: Target): boolean => target.kind === 'remote';

/** The confirmation of `action` on the core at `where.url` (a real core's URL, or the sandbox's for the wizard's undo). */
export async function confirmationFor(
  action: Confirmation['action'],
  where: { url: string; tenant?: string; app?: string },
  client: CoreClient,
  effects: string[],
): Promise<Confirmation> {
  const target = where;
  let typed = target.url;
  try {
    typed = new URL(target.url).host;
  } catch {
    // resolveTarget checked the URL; keep it whole if it still does not parse.
  }
  return {
    action,
    url: target.url.replace(/\/+$/, ''),
    tenant: target.tenant ?? 'public',
    app: target.app ?? 'public',
    usersThere: await usersInTenant(client).catch(() => undefined),
    effects,
    typed,
  };
}

/** The confirmation in lines, the same in a terminal and on the wizard's screens. */
export function confirmationLines(c: Confirmation, count: (n: number) => string = String): string[] {
  const verb = c.action === 'rollback' ? 'remove from' : 'write into';
  return [
    `about to ${verb} the core ${c.url} (app ${c.app}, tenant ${c.tenant})`,
    c.usersThere === undefined
      ? 'users there now: unknown (the core did not answer GET /users/count)'
      : `users there now: ${count(c.usersThere)}`,
    ...c.effects,
  ];
}
