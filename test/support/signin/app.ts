// A test app on the official Node SDK with the sign-in part installed, as an app's backend would set it up:
// EmailPassword with withLegacySignIn (imported through the workspace package's own export, auth-migrate-signin, so
// the built module is what runs), UserMetadata, UserRoles and Session. One SDK instance per test file (process).
import supertokens from 'supertokens-node';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import Session from 'supertokens-node/recipe/session';
import UserMetadata from 'supertokens-node/recipe/usermetadata';
import UserRoles from 'supertokens-node/recipe/userroles';
import { cognitoVerdict, withLegacySignIn, type SignInMigrationEvent } from 'auth-migrate-signin';
import { COGNITO_POOL, HASHES, SIGNIN_SECRET } from './users.js';

export interface TestApp {
  events: SignInMigrationEvent[];
  resets: Array<{ userId: string; email: string }>;
}

export function initTestApp(connectionURI: string, apiKey?: string): TestApp {
  const app: TestApp = { events: [], resets: [] };
  supertokens.init({
    supertokens: { connectionURI, ...(apiKey ? { apiKey } : {}) },
    appInfo: { appName: 'signin-test', apiDomain: 'http://localhost:3001', websiteDomain: 'http://localhost:3000' },
    recipeList: [
      EmailPassword.init({
        override: {
          functions: withLegacySignIn({
            secret: SIGNIN_SECRET,
            hashes: HASHES,
            cognito: {
              checkPassword: async ({ username, password }) => {
                const u = COGNITO_POOL[username];
                if (!u || u.password !== password) return cognitoVerdict(undefined, { name: 'NotAuthorizedException' });
                return cognitoVerdict(
                  u.status === 'FORCE_CHANGE_PASSWORD' ? { ChallengeName: 'NEW_PASSWORD_REQUIRED' } : { AuthenticationResult: {} },
                );
              },
            },
            onResetRequired: async ({ userId, email }) => {
              app.resets.push({ userId, email });
            },
            onEvent: (e) => app.events.push(e),
          }),
        },
      }),
      UserMetadata.init(),
      UserRoles.init(),
      Session.init(),
    ],
  });
  return app;
}
