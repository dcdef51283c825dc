// The legacy password hash as the export gave it: what the CLI's records carry (CanonicalLegacyPassword is this
// type), what a legacy entry stores, and what every checker of this folder takes.

export interface LegacyPassword {
  /** The source's name for it, e.g. `md5`, `pbkdf2-sha256`, `firebase_hmac_sha256`. */
  algorithm: string;
  hash: string;
  salt?: string;
  /** Other parameters (iterations, key, rounds...) as the source gave them. */
  params?: Record<string, string | number>;
}
