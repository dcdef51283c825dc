// One app instance for the cross-process replay test: its own supertokens-node initialised against the sandbox,
// the session module transpiled by the test (SESSION_MODULE). Prints `ready` once it has spoken to the core, waits
// for `go` on stdin, exchanges TOKEN and prints the outcome as one JSON line.
import supertokens from 'supertokens-node';
import Session from 'supertokens-node/recipe/session';
import UserRoles from 'supertokens-node/recipe/userroles';
import { createInterface } from 'node:readline';

const env = process.env;
supertokens.init({
  supertokens: { connectionURI: env.CORE_URL, apiKey: env.CORE_API_KEY },
  appInfo: { appName: 'worker', apiDomain: 'http://localhost:3001', websiteDomain: 'http://localhost:3000' },
  recipeList: [Session.init(), UserRoles.init()],
});
const { exchangeLegacySession } = await import(env.SESSION_MODULE);
await supertokens.getUserIdMapping({ userId: 'warm-up', userIdType: 'EXTERNAL' });
console.log('ready');
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim() !== 'go') continue;
  const out = await exchangeLegacySession(env.TOKEN, JSON.parse(env.OPTIONS));
  console.log(JSON.stringify({ status: out.status, userId: out.userId, reason: out.reason }));
  break;
}
process.exit(0);
