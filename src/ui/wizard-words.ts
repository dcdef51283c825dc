// Messages written for the command line name flags (`--license-key`); the wizard shows them with the screen and
// key that do the same, so an operator in the wizard is told where to go, not what to type in a shell.
const SAYINGS: Array<[RegExp, string]> = [
  [/\(--license-key or AUTH_MIGRATE_LICENSE_KEY\)/g, '(licence key, keys screen)'],
  [/--license-key( KEY)?( or AUTH_MIGRATE_LICENSE_KEY)?/g, 'the licence key (keys screen)'],
  [/--api-key( KEY)?( or AUTH_MIGRATE_API_KEY)?/g, 'the api key (keys screen)'],
  [/--signer-key( KEY)?( or AUTH_MIGRATE_SIGNER_KEY)?/g, 'the signer key (keys screen)'],
  [/(give |pass )?--hash-config FILE/g, 'paste the hash params (or their file path) on the source files screen'],
  [/(,? or )?(run )?with --allow-partial/g, '$1press a on the plan screen'],
  [/--allow-partial/g, "the plan screen's a key"],
  [/--keep-source-ids/g, 'keep source ids (plan screen)'],
  [
    /--unusable-hashes migrate-at-sign-in needs AUTH_MIGRATE_SIGNIN_SECRET( \(or \S+ the profile's\))? in the environment/g,
    'migrate at sign-in needs the sign-in secret (keys screen)',
  ],
  [/--unusable-hashes( [a-z-]+)?/g, 'unusable hashes (plan screen)'],
  [/--scrypt-algorithm-name/g, 'scrypt name (plan screen)'],
  [/--update-existing/g, 'update existing (plan screen)'],
  [/--disabled role:NAME/g, 'a role name kept in the profile'],
  [/;? ?`auth-migrate validate` says why/g, ''],
  [/ ?\(validate lists why\)/g, ''],
  [/`run` leaves it out/g, 'the run leaves it out'],
  [/\(or use --via steps\)/g, '(or choose "write users via" steps on the plan screen)'],
  [
    / ?If the core runs its job less often, say so with --job-interval SECONDS(; if it is only slow to start, give it longer with --stall-after SECONDS)?\./g,
    '',
  ],
  [/the same command carries on/g, 'running again carries on'],
];

/** `text` with the command line's flags said as the wizard's screens. */
export function inWizardWords(text: string): string {
  return SAYINGS.reduce((t, [pattern, words]) => t.replace(pattern, words), text);
}
