// One app process for the two-process race of test/support/signin/guard-suite.ts: the official SDK with auth-migrate-signin,
// as a separate backend instance would run it. Signs in once at the agreed instant (argv: core URL, email,
// password, start time in epoch ms) and prints one JSON line: the answer's status and the part's events.
import supertokens from 'supertokens-node';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import Session from 'supertokens-node/recipe/session';
import UserMetadata from 'supertokens-node/recipe/usermetadata';
import { withLegacySignIn } from 'auth-migrate-signin';

const [url, email, password, startAt] = process.argv.slice(2);
const events = [];
supertokens.init({
  supertokens: { connectionURI: url, ...(process.env.CORE_API_KEY ? { apiKey: process.env.CORE_API_KEY } : {}) },
  appInfo: { appName: 'signin-race', apiDomain: 'http://localhost:3001', websiteDomain: 'http://localhost:3000' },
  recipeList: [
    EmailPassword.init({
      override: { functions: withLegacySignIn({ secret: process.env.AUTH_MIGRATE_SIGNIN_SECRET, onEvent: (e) => events.push(e.outcome) }) },
    }),
    UserMetadata.init(),
    Session.init(),
  ],
});
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
const answer = await EmailPassword.signIn('public', email, password);
process.stdout.write(JSON.stringify({ status: answer.status, events }) + '\n');
