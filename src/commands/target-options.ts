// The command-line options of a target and of the sources (node:util parseArgs definitions), shared by run,
// verify, rollback and validate. What they mean is resolved once for both shells in src/operations/.
export {
  clientFor,
  connectTarget,
  DEFAULT_SANDBOX_STORE,
  describeTarget,
  resolveTarget,
  RUN_RETRY,
  SECRET_ENV,
  type Connection,
  type ConnectOptions,
  type ResolvedTarget,
  type SecretFlag,
  type Target,
  type TargetOptionValues,
  type TargetSecrets,
} from '../operations/target.js';
export { sourceFiles, sourceReadOptions } from '../operations/sources.js';

/** node:util parseArgs definitions of the target options. */
export const TARGET_OPTIONS = {
  core: { type: 'string' },
  sandbox: { type: 'boolean' },
  store: { type: 'string' },
  'api-key': { type: 'string' },
  'license-key': { type: 'string' },
  'signer-key': { type: 'string' },
  tenant: { type: 'string' },
  app: { type: 'string' },
  profile: { type: 'string' },
  ca: { type: 'string' },
} as const;

/** The reader options of run and verify (validate adds --signer-key: source-options.ts). */
export const SOURCE_OPTIONS = {
  format: { type: 'string' },
  'hash-config': { type: 'string' },
  'provider-map': { type: 'string' },
  /** How validation treats users whose hash the core cannot take (operations/sources.ts). */
  'unusable-hashes': { type: 'string' },
} as const;
