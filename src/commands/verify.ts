// Placeholder until this command lands; replaced by its implementation.
import type { CommandIO } from '../cli.js';
import { UserError } from '../errors.js';

export async function verifyCommand(_argv: string[], _io: CommandIO): Promise<number> {
  throw new UserError('the verify command is not built yet', 2);
}
