// The command that resumes or reruns a migration, printed and saved as resume.txt. It never holds a secret nor a
// reference to one (`--api-key "$VAR"` is empty in a shell that did not export VAR): the keys the run used come
// from the profile, or from the AUTH_MIGRATE_* variables the text says to export first.
// Invariant: the text never holds a secret, nor a reference to one.
import { SECRET_ENV, type SecretFlag } from './target.js';

export interface Rerun {
  /** `auth-migrate run …`, quoted for a POSIX shell. */
  command: string;
  /** Variables to export before running it (the keys the run used that no profile supplies). */
  exports: string[];
}

const SHELL_SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

export function shellQuote(arg: string): string {
  return SHELL_SAFE.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

const SECRET_FLAGS = Object.keys(SECRET_ENV) as SecretFlag[];

/** `args` without any secret flag or its value (`--api-key KEY`, `--api-key=KEY`). */
export function withoutSecrets(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    const flag = SECRET_FLAGS.find((f) => arg === `--${f}` || arg.startsWith(`--${f}=`));
    if (flag) {
      if (arg === `--${flag}`) i += 1;
      continue;
    }
    out.push(arg);
  }
  return out;
}

const has = (args: string[], flag: string): boolean => args.some((a) => a === flag || a.startsWith(`${flag}=`));

/**
 * The rerun of `command` with `args` (secrets taken out), pointed at its journal and sandbox store when the
 * arguments did not name them (the same command would find them, but a copy run elsewhere would not).
 */
export function rerunCommand(command: string, args: string[], o: { journal?: string; store?: string; exports: string[] }): Rerun {
  const clean = withoutSecrets(args);
  if (o.journal !== undefined && !has(clean, '--journal')) clean.push('--journal', o.journal);
  if (o.store !== undefined && !has(clean, '--store') && !has(clean, '--core')) clean.push('--store', o.store);
  return { command: ['auth-migrate', command, ...clean.map(shellQuote)].join(' '), exports: o.exports };
}

/** The rerun as an operator reads it: what to export first (never a value), then the command. */
export function rerunText(rerun: Rerun): string {
  if (rerun.exports.length === 0) return rerun.command;
  return `export ${rerun.exports.join(' ')} (the keys this run used; never put them on the command line), then: ${rerun.command}`;
}

/** resume.txt: the same, as a shell script would hold it (a comment, then the command). */
export function rerunFileText(rerun: Rerun): string {
  const note =
    rerun.exports.length > 0
      ? `# This run used keys from ${rerun.exports.join(', ')}: export ${rerun.exports.length > 1 ? 'them' : 'it'} before running the command below.\n`
      : '';
  return `${note}${rerun.command}\n`;
}
