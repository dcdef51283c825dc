// `auth-migrate run --help`.
import { DEFAULT_CONCURRENCY } from '../engine/runner.js';
import { VIA_EXPLAINED } from '../engine/strategies/via.js';

/** Users whose steps `--dry-run` lists without --steps. */
export const DRY_RUN_SAMPLE = 10;

export const RUN_HELP = `Usage: auth-migrate run <file>... [options]     (a file named - is standard input)

Validate the export files, then migrate every valid user into the target core.

Examples:
  auth-migrate run users.csv --format clerk --sandbox                 rehearse on a local sandbox core
  auth-migrate run export.csv --hash-config hash.txt --sandbox --dry-run    the plan, nothing written
  AUTH_MIGRATE_API_KEY=... auth-migrate run users.csv identities.csv mfa_factors.csv --core https://core.example.com
  auth-migrate run --profile night --yes                              a saved profile, no question (scripts)

Target:     --core URL | --sandbox [--store FILE]   --tenant T  --app A  --profile NAME
            --ca FILE: trust this certificate (PEM) for an https core with its own CA (or NODE_EXTRA_CA_CERTS)
Keys:       --api-key KEY  --license-key KEY  --signer-key B64
            (better: AUTH_MIGRATE_API_KEY, AUTH_MIGRATE_LICENSE_KEY, AUTH_MIGRATE_SIGNER_KEY; never in a saved command)
Confirm:    before a real core (--core) is written, the target (URL, app, tenant), the users it holds now and
            what the run writes are printed, and in a terminal you type the core's host to go on; --yes goes on
            without asking (scripts). Without a terminal (cron, CI, < /dev/null) a run into a real core is refused
            (exit 2, nothing written) unless --yes is given. The sandbox is never asked about.
Sources:    --format canonical|firebase|firebase-csv|auth0|clerk|supabase|keycloak|cognito|totp  --hash-config FILE  --provider-map FILE
            --unusable-hashes skip|without-password|migrate-at-sign-in (see Migration)
            A run that would lose a whole class of users for one missing setting (scrypt hashes without
            --hash-config, a Supabase users file without its identities or mfa_factors file, hashes the core
            cannot take with no --unusable-hashes chosen) is refused before any write, with the fix;
            --allow-partial goes on without them, knowingly.
Files:      each run writes its journal, report, failures file and resume command into one folder named for
            the profile (or the sources' format) and the UTC time, e.g. ./clerk-2026-11-23T09-35-08Z/, printed at
            start; --out DIR puts that folder under DIR instead of the current folder. Inside a git work tree the
            folder ignores itself (its files hold emails and ids). The same command run again (same files, same
            target) carries on in the newest folder of that migration. --journal FILE instead: the journal at
            FILE, the other files beside it (FILE minus .journal.ndjson + .report.ndjson...)
Migration:  --concurrency N (default ${DEFAULT_CONCURRENCY}; fewer at once while the core answers 5xx or times out)
            --keep-source-ids (--no-keep-source-ids turns a profile's off; --no-update-existing likewise)
            --scrypt-algorithm-name NAME (default: the name the preflight finds the core takes, external_scrypt
            or firebase_scrypt)  --update-existing (replace the password hash of users already in the core;
            by default they are found first and left unchanged)  --disabled skip|import|role:NAME (users disabled
            or blocked in the source: left out by default, reported as skipped; import migrates them anyway;
            role:NAME migrates them with the role NAME, so the app can refuse them)
            --unusable-hashes skip|without-password|migrate-at-sign-in (users whose password hash the core cannot
            take, md5, sha-*, pbkdf2, Firebase HMAC, Django bcrypt_sha256...: skip leaves them out; given none, a
            run with such users is refused before any write, as a missing setting is; without-password
            imports the rest of them; migrate-at-sign-in imports them whole with a placeholder password and keeps the
            hash, signed with AUTH_MIGRATE_SIGNIN_SECRET (required, environment only), in the core for the app's
            sign-in part, the package auth-migrate-signin). Such users are listed, with their hash,
            in signin-migration.ndjson of the run folder (0600); auth-migrate signin-status follows them (docs/migration.md 6a)
Via:        --via steps|bulk|bulk-staged (default steps)
            steps: ${VIA_EXPLAINED.steps}
            bulk: ${VIA_EXPLAINED.bulk}
            bulk-staged: ${VIA_EXPLAINED['bulk-staged']}
            --batch-size N (bulk-staged: users per upload, default 10000, the core's most)
            --job-interval SECONDS (bulk-staged: how often the core runs its bulk-import job, default 300 as the
            reference core, the --sandbox's 5: the run says when it runs next, and stops with a warning when
            nothing moves for two intervals and a margin, and never before a minute)
            --stall-after SECONDS (bulk-staged: how long the job may show no move, with users waiting, before
            the run stops; for a core that is slow to start its runs)
Slice:      --skip N  --limit N  --only ID[,ID...] (repeatable): try a first slice of the records (in file
            order) before the rest; a later run without them carries on with everything
Sync:       --sync: bring the core up to date with a newer export of the same migration (the second pass of a
            cutover): only new, changed and gone users cost requests; the earlier run is the newest run folder
            of this target under --out (or here), or --from-journal FILE; --remove-missing removes users the export
            no longer has (only those the migration created, unchanged since); with --dry-run, the delta and the
            changes planned. The old system is authoritative until cutover: changed hashes are imported over the
            core's (docs/migration.md, "Two-pass cutover")
Output:     --dry-run (the plan's totals per step kind and the first ${DRY_RUN_SAMPLE} users' steps; with --steps every user's;
            writes nothing)  --json (one summary on stdout)  --json-events (every event, one JSON line each)
Checks:     before any write the core is checked (reachable, api-key, CDI version, tenant, and the licence
            features the plan needs); --skip-preflight goes straight to the writes
Exit codes: 0 all users ok, 1 some failed or were skipped, 2 bad usage / unreadable input / refused / fatal core
            answer (401, 402, unreachable), 130 stopped by SIGINT/SIGTERM (rerun the printed command to resume).
A sandbox rehearsal gets exactly the keys given: without --license-key its TOTP and linking answer 402,
as a production core without a licence would.
`;
