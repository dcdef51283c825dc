// A local test issuer for session migration tests: an RS256 key pair whose JWKS is served on 127.0.0.1, and an
// HS256 secret, with a helper that signs tokens with any claims (expired, not yet valid, other audience...).
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload, type KeyLike } from 'jose';

export interface TestIssuer {
  url: string;
  jwksUri: string;
  secret: string;
  /** Signs with the served RSA key (or `key`, to forge a bad signature under the same kid). */
  rs256(claims: JWTPayload, key?: KeyLike): Promise<string>;
  hs256(claims: JWTPayload, secret?: string): Promise<string>;
  close(): Promise<void>;
}

export async function startTestIssuer(): Promise<TestIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
  const server: Server = createServer((req, res) => {
    if (req.url === '/.well-known/jwks.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [jwk] }));
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const url = `http://127.0.0.1:${port}`;
  const secret = randomBytes(32).toString('base64url');
  const now = () => Math.floor(Date.now() / 1000);
  const base = (claims: JWTPayload): JWTPayload => ({ iat: now(), exp: now() + 300, jti: randomBytes(8).toString('hex'), ...claims });
  return {
    url,
    jwksUri: `${url}/.well-known/jwks.json`,
    secret,
    rs256: (claims, key) => new SignJWT(base(claims)).setProtectedHeader({ alg: 'RS256', kid: 'test-key-1' }).sign(key ?? privateKey),
    hs256: (claims, s) => new SignJWT(base(claims)).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(s ?? secret)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
