// `auth-migrate profiles list|show|delete|rename|duplicate`: saved profiles without the wizard. Never prints a secret.
import { parseArgs } from 'node:util';
import type { CommandIO } from './io.js';
import { UsageError } from '../errors.js';
import {
  deleteProfile,
  describeProfile,
  describeTarget,
  duplicateProfile,
  listProfiles,
  loadProfile,
  profilePaths,
  renameProfile,
} from '../profiles/index.js';

const HELP = `Usage:
  auth-migrate profiles list               the saved profiles and where they live
  auth-migrate profiles show NAME          one profile; secrets shown only as (stored), (from $VAR) or (not stored)
  auth-migrate profiles delete NAME        delete a profile and its stored secrets
  auth-migrate profiles rename OLD NEW
  auth-migrate profiles duplicate FROM NEW
Profiles live in $AUTH_MIGRATE_CONFIG_DIR, or else your user config folder. Create them in the wizard (\`auth-migrate\`).
`;

function args(positionals: string[], count: number, usage: string): string[] {
  if (positionals.length !== count) throw new UsageError(`usage: auth-migrate profiles ${usage}`);
  return positionals;
}

export async function profilesCommand(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { help: { type: 'boolean', short: 'h' } } });
  const [action, ...rest] = positionals;
  if (values.help || action === undefined || action === 'help') {
    io.stdout.write(HELP);
    return action === undefined && !values.help ? 2 : 0;
  }
  switch (action) {
    case 'list': {
      args(rest, 0, 'list');
      const profiles = await listProfiles(io.env);
      if (profiles.length === 0) io.stdout.write(`no profiles saved yet (folder ${profilePaths(io.env).dir})\n`);
      for (const p of profiles) {
        const files = p.sources.map((s) => s.path).join(', ') || 'no sources';
        io.stdout.write(`${p.name}\t${describeTarget(p)}\t${files}\n`);
      }
      return 0;
    }
    case 'show': {
      const [name] = args(rest, 1, 'show NAME');
      io.stdout.write(describeProfile(await loadProfile(name!, io.env)).join('\n') + '\n');
      return 0;
    }
    case 'delete': {
      const [name] = args(rest, 1, 'delete NAME');
      await deleteProfile(name!, io.env);
      io.stdout.write(`deleted profile ${name}\n`);
      return 0;
    }
    case 'rename': {
      const [from, to] = args(rest, 2, 'rename OLD NEW');
      await renameProfile(from!, to!, io.env);
      io.stdout.write(`renamed profile ${from} to ${to}\n`);
      return 0;
    }
    case 'duplicate': {
      const [from, to] = args(rest, 2, 'duplicate FROM NEW');
      await duplicateProfile(from!, to!, io.env);
      io.stdout.write(`copied profile ${from} to ${to}\n`);
      return 0;
    }
    default:
      throw new UsageError(`unknown profiles action '${action}': use list, show, delete, rename or duplicate.`);
  }
}
