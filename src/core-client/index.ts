// Public surface of the core client: createCoreClient, preflight, the result types and the typed errors.
export { createCoreClient, DEFAULT_CDI_VERSION, DEFAULT_TIMEOUT_MS } from './client.js';
export { DEFAULT_RETRY, backoffDelay, parseRetryAfter } from './retry.js';
export * from './errors.js';
export type * from './types.js';
export type * from './import-bodies.js';
export { preflight, agreeVersion, SPOKEN_CDI_VERSIONS, PREFERRED_CDI_VERSION } from './preflight.js';
export type { PreflightReport, PreflightFinding, PreflightOptions, FindingCode, FindingLevel } from './preflight.js';
