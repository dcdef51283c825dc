// Saved migration profiles: the one entry point the commands and the wizard use.
export * from './types.js';
export * from './store.js';
export * from './describe.js';
export * from './secret-rules.js';
export * from './hash-config.js';
