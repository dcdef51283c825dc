// The results screen's sign-in check: the same `POST /recipe/signin` as `verify --credentials`, with what
// the core answered turned into an outcome the screen can show. Passwords go to the core and nowhere else.
import { CoreClientError, CoreConfigError } from '../../core-client/errors.js';
import type { CoreClient, SignInResult } from '../../core-client/types.js';
import { checkCredential, parseCredentials } from '../../engine/verify.js';
import type { CredentialsFileResult, SignInOutcome } from './types.js';

/** A plain sentence for an error met while signing in; the missing signer key gets a short one of its own. */
export function describeSignInError(err: unknown): string {
  if (err instanceof CoreConfigError) {
    return 'the core has no signer key, so it cannot check scrypt (Firebase) passwords (HTTP 500): restart it with the signer key';
  }
  return err instanceof Error ? err.message : String(err);
}

export function signInOutcome(result: SignInResult): SignInOutcome {
  if (result.status === 'OK') return { status: 'signed-in', userId: result.user.id, loginMethods: result.user.loginMethods.length };
  return { status: 'wrong-credentials' };
}

export async function signIn(core: CoreClient, email: string, password: string): Promise<SignInOutcome> {
  try {
    return signInOutcome(await core.signIn(email, password));
  } catch (err) {
    return { status: 'error', error: describeSignInError(err) };
  }
}

/** Each `email,password` line of `text` (parsed as `verify --credentials` parses it), one after another. */
export async function checkCredentialsText(core: CoreClient, text: string): Promise<CredentialsFileResult> {
  const result: CredentialsFileResult = { checked: 0, ok: 0, failed: [] };
  for (const { email, password } of parseCredentials(text)) {
    result.checked += 1;
    try {
      const check = await checkCredential(core, email, password);
      if (check.ok) result.ok += 1;
      else result.failed.push({ email, status: check.status === 'WRONG_CREDENTIALS_ERROR' ? 'wrong credentials' : check.status });
    } catch (err) {
      // An unreachable core or a refused api key ends the check; every other line would meet it too.
      if (err instanceof CoreClientError && err.fatal && !(err instanceof CoreConfigError)) throw err;
      // One line's error (a 500 for a hash the core cannot check) does not hide the other lines' answers.
      result.failed.push({ email, status: describeSignInError(err) });
    }
  }
  return result;
}
