// An Express-style handler (also node:http) for the exchange endpoint: the old token from `Authorization: Bearer`
// (or a JSON body's `token`), the session set on the response by the SDK (Session.createNewSession with req/res:
// cookies or headers as the app's Session.init says). Answers 200 {status:'OK', userId}, 401 for INVALID_TOKEN and
// UNKNOWN_USER, 409 for REPLAYED, 400 without a token; never echoes the token.
import type { IncomingMessage, ServerResponse } from 'node:http';
import supertokens from 'supertokens-node';
import Session from 'supertokens-node/recipe/session';
import { prepareExchange } from './exchange.js';
import type { ExchangeOptions } from './types.js';

type Req = IncomingMessage & { body?: unknown };
type Res = ServerResponse & { status?: (code: number) => Res; json?: (body: unknown) => void };

function send(res: Res, code: number, body: unknown): void {
  if (typeof res.status === 'function' && typeof res.json === 'function') return void res.status(code).json!(body);
  res.statusCode = code;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(body));
}

export function tokenFromRequest(req: Req): string | undefined {
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && /^bearer /i.test(auth)) return auth.slice(7).trim();
  const body = req.body as { token?: unknown } | undefined;
  return typeof body?.token === 'string' ? body.token : undefined;
}

/** `app.post('/auth/legacy-session', legacySessionExchangeHandler(options))`; put a rate limiter in front (docs). */
export function legacySessionExchangeHandler(options: ExchangeOptions & { tokenFrom?: (req: Req) => string | undefined }) {
  return async (req: Req, res: Res, next?: (err?: unknown) => void): Promise<void> => {
    try {
      const token = (options.tokenFrom ?? tokenFromRequest)(req);
      if (!token) return send(res, 400, { status: 'INVALID_TOKEN', reason: 'no token in the request' });
      const prepared = await prepareExchange(token, options);
      if ('status' in prepared) return send(res, prepared.status === 'REPLAYED' ? 409 : 401, prepared);
      const session = await Session.createNewSession(
        req,
        res,
        prepared.tenantId,
        new supertokens.RecipeUserId(prepared.recipeUserId),
        options.accessTokenPayload,
        options.sessionDataInDatabase,
        options.userContext,
      );
      send(res, 200, { status: 'OK', userId: session.getUserId() });
    } catch (err) {
      if (next) next(err);
      else send(res, 500, { status: 'ERROR' });
    }
  };
}
