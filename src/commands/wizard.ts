// `auth-migrate` with no command: the interactive workbench on a terminal; without one, the headless
// commands to use instead (exit 2), never waiting for keys that cannot come.
import { parseArgs } from 'node:util';
import type { CommandIO } from './io.js';
import { UsageError } from '../errors.js';

export const HEADLESS_HELP = `auth-migrate: the interactive workbench needs a terminal (stdin and stdout must be a TTY).
Use the headless commands instead:
  auth-migrate validate <file>... [--profile NAME]                 read and check the export files
  auth-migrate run <file>... --sandbox [--store FILE] --dry-run   show the plan, write nothing
  auth-migrate run <file>... --sandbox [--store FILE]             rehearse on a local sandbox core
  auth-migrate run <file>... --core URL [--profile NAME]          migrate into a core
  auth-migrate verify <file>... --core URL [--profile NAME]       check the migrated users
  auth-migrate profiles list | show NAME | delete NAME            saved profiles
Keys come from --api-key/--license-key/--signer-key, a profile, or AUTH_MIGRATE_API_KEY,
AUTH_MIGRATE_LICENSE_KEY and AUTH_MIGRATE_SIGNER_KEY. \`auth-migrate --help\` lists every command.
`;

interface TtyStream {
  isTTY?: boolean;
}

export async function wizardCommand(argv: string[], io: CommandIO, stdin: TtyStream = process.stdin): Promise<number> {
  let profile: string | undefined;
  let out: string | undefined;
  try {
    ({ profile, out } = parseArgs({ args: argv, options: { profile: { type: 'string' }, out: { type: 'string' } }, strict: true }).values);
  } catch (err) {
    throw new UsageError(`${(err as Error).message}. The wizard takes only --profile NAME and --out DIR; see \`auth-migrate --help\`.`);
  }
  if (!stdin.isTTY || !(io.stdout as TtyStream).isTTY) {
    io.stderr.write(HEADLESS_HELP);
    return 2;
  }
  // NO_COLOR (no-color.org) asks for no colour; chalk, which Ink draws with, reads only FORCE_COLOR, once at import.
  const forced = colourOverride(io.env);
  if (forced !== undefined) process.env.FORCE_COLOR = forced;
  // Loaded only on a terminal: headless runs never start Ink or React.
  const [{ render }, React, { App }, { createRealServices }] = await withInteractiveInk(() =>
    Promise.all([import('ink'), import('react'), import('../ui/App.js'), import('../ui/services/real.js')]),
  );
  const services = createRealServices({ env: io.env, out });
  const instance = render(React.createElement(App, { services, profile }), { exitOnCtrlC: false, stdout: io.stdout as NodeJS.WriteStream });
  await instance.waitUntilExit();
  // The same codes as `run` for the session's last run (0 when it ran nothing or everything went well).
  return services.exitCode();
}

/** The FORCE_COLOR the wizard's colours should obey: `0` for a non-empty NO_COLOR (FORCE_COLOR, when set, wins). */
export function colourOverride(env: NodeJS.ProcessEnv): string | undefined {
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR;
  return env.NO_COLOR !== undefined && env.NO_COLOR !== '' ? '0' : undefined;
}

const CI_VARIABLES = ['CI', 'CONTINUOUS_INTEGRATION'] as const;

/**
 * Ink reads `CI` once, when it is first imported, and then writes only the final frame. The wizard runs only
 * when stdin and stdout are a terminal, that is when a person is typing, so a `CI` variable inherited by that
 * terminal (a CI job driving tmux, a dev container) must not switch the screen off. The variables are hidden
 * while Ink loads and put back at once, so child processes still see them.
 */
async function withInteractiveInk<T>(load: () => Promise<T>): Promise<T> {
  const saved = CI_VARIABLES.map((name) => [name, process.env[name]] as const);
  for (const [name] of saved) delete process.env[name];
  try {
    return await load();
  } finally {
    for (const [name, value] of saved) if (value !== undefined) process.env[name] = value;
  }
}
