// Whole classes of users that one missing setting or file would drop: Firebase scrypt hashes without the hash
// config, a Supabase users table without its identities or mfa_factors, an Auth0 user export without its
// password-hash export, a companion row no user can be found for. Readers note them here (like field-report.ts);
// validation puts them in its summary (`droppedClasses`) and prints them, and `run` refuses to write before
// they are fixed (unless told --allow-partial): per-record errors alone read as "5 invalid" when the cause is one.
import { formatCount } from '../numbers.js';

export type DroppedClassRule = 'hash-config.missing' | 'companion.missing' | 'companion.damaged';

export interface DroppedClass {
  rule: DroppedClassRule;
  /** How many users lose it; absent when the files cannot say (nothing in auth.users tells who has MFA factors). */
  users?: number;
  /** What they lose: "their password", "their third-party logins", ... */
  loses: string;
  /** Why: the setting or file that was not given. */
  because: string;
  /** What to do: the option or the file to add. */
  fix: string;
  /** For a missing companion file: the file the reader looked for (beside the file given). */
  expectedFile?: string;
  /** The four parts above as one sentence, as `validate` prints it. */
  message: string;
}

type Parts = Omit<DroppedClass, 'users' | 'message'>;

export class SourceFindings {
  private readonly entries = new Map<string, { parts: Parts; users: number | undefined }>();

  /** `users` more users lose what `parts` says (`unknown`: the files cannot say how many). */
  dropped(parts: Parts, users: number | 'unknown' = 1): void {
    const key = `${parts.rule}\u0000${parts.expectedFile ?? ''}\u0000${parts.loses}`;
    const count = users === 'unknown' ? undefined : users;
    const entry = this.entries.get(key);
    if (!entry) this.entries.set(key, { parts, users: count });
    else if (entry.users !== undefined) entry.users = count === undefined ? undefined : entry.users + count;
  }

  get empty(): boolean {
    return this.entries.size === 0;
  }

  list(): DroppedClass[] {
    return [...this.entries.values()].map(({ parts, users }) => {
      const who = users === undefined ? 'Users' : `${formatCount(users)} user${users === 1 ? '' : 's'}`;
      const message = `${who} would lose ${parts.loses}: ${parts.because}; ${parts.fix}`;
      return { ...parts, ...(users === undefined ? {} : { users }), message };
    });
  }
}
