// The source options of every command that reads exports (validate, run, verify): the parseArgs definitions;
// what they resolve to (format, hash config, provider map, signer key) is operations/sources.ts.
import { SOURCE_OPTIONS as READER_OPTIONS } from './target-options.js';

export { normaliseSignerKey, resolveSourceOptions, sourceFiles, type SourceOptionValues } from '../operations/sources.js';

/** node:util parseArgs definitions: the reader options plus --signer-key. */
export const SOURCE_OPTIONS = {
  ...READER_OPTIONS,
  'signer-key': { type: 'string' },
} as const;
