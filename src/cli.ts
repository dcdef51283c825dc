// argv -> command. Decides once whether to open the interactive wizard or run a headless command.
import type { CommandIO } from './commands/io.js';
import { UsageError, UserError } from './errors.js';
import { fileErrorMessage, isFileError, tellFileError } from './files/errors.js';

export { exitOnFileErrors } from './files/errors.js';

export type { CommandIO };

type CommandMain = (argv: string[], io: CommandIO) => Promise<number>;

interface CommandEntry {
  summary: string;
  load: () => Promise<CommandMain>;
}

// Lazy imports keep `auth-migrate core` quick to start: it never loads React or the readers.
export const COMMANDS: Record<string, CommandEntry> = {
  core: {
    summary: 'run the sandbox core in the foreground (a local stand-in for the reference core)',
    load: async () => (await import('./commands/core.js')).coreCommand,
  },
  validate: {
    summary: 'read export files, validate every record and spot-check passwords',
    load: async () => (await import('./commands/validate.js')).validateCommand,
  },
  run: {
    summary: 'migrate the users of export files into a core (or a sandbox rehearsal)',
    load: async () => (await import('./commands/run.js')).runCommand,
  },
  verify: {
    summary: 'check that the users of export files are present and usable in a core',
    load: async () => (await import('./commands/verify.js')).verifyCommand,
  },
  rollback: {
    summary: 'remove from the core exactly what a run created (from its journal), never users it found present',
    load: async () => (await import('./commands/rollback.js')).rollbackCommand,
  },
  'signin-status': {
    summary: 'users still waiting for migration at first sign-in, per algorithm and since when; --expire ends the window',
    load: async () => (await import('./commands/signin-status.js')).signInStatusCommand,
  },
  profiles: {
    summary: 'saved migration profiles: list, show, delete, rename, duplicate',
    load: async () => (await import('./commands/profiles.js')).profilesCommand,
  },
};

export function helpText(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    'auth-migrate: move users, passwords and second factors into a SuperTokens-compatible core',
    '',
    'Usage:',
    '  auth-migrate [--profile NAME] [--out DIR]',
    '                               open the interactive workbench (needs a terminal)',
    '  auth-migrate <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Files: each run (wizard or `run`) writes its journal, report, failures file and resume command into one',
    "folder named for the profile (else the sources' format) and the UTC time, e.g. ./night-2026-11-23T09-35-08Z/,",
    'under the current folder or --out DIR; inside a git work tree it ignores itself (it holds emails and ids).',
    '',
    'Examples:',
    '  auth-migrate                                              the wizard',
    '  auth-migrate validate users.csv --format clerk            what an export holds, nothing written',
    '  auth-migrate run users.csv --format clerk --sandbox       a rehearsal into a local sandbox core',
    '  auth-migrate run --profile night                          a saved profile into its core (asks before writing)',
    '  auth-migrate rollback --journal ./night-2026-11-23T09-35-08Z/journal.ndjson',
    '',
    'Run `auth-migrate <command> --help` for the options of a command.',
    '',
  ].join('\n');
}

export async function main(
  argv: string[],
  io: CommandIO = { stdout: process.stdout, stderr: process.stderr, env: process.env },
): Promise<number> {
  const [first, ...rest] = argv;
  try {
    if (first === '--help' || first === '-h' || first === 'help') {
      io.stdout.write(helpText());
      return 0;
    }
    if (first === '--version' || first === '-v') {
      const { readFileSync } = await import('node:fs');
      const { join } = await import('node:path');
      const { packageRoot } = await import('./shared/package-root.js');
      const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
      io.stdout.write(`${pkg.version}\n`);
      return 0;
    }
    if (first === undefined || first.startsWith('--profile') || first.startsWith('--out')) {
      const { wizardCommand } = await import('./commands/wizard.js');
      return await wizardCommand(argv, io);
    }
    const entry = COMMANDS[first];
    if (!entry) throw new UsageError(`unknown command '${first}'. Commands: ${Object.keys(COMMANDS).join(', ')}.`);
    const command = await entry.load();
    return await command(rest, io);
  } catch (err) {
    if (err instanceof UserError) {
      io.stderr.write(`auth-migrate: ${err.message}\n`);
      return err.exitCode;
    }
    // A file the command writes: one line naming the path and the fix (src/files/errors.ts), never a stack.
    if (isFileError(err)) {
      tellFileError(io.stderr, fileErrorMessage(err));
      return 2;
    }
    throw err;
  }
}
