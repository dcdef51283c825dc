// AWS Cognito exports no password hashes: while the old user pool is still up, the app's own function asks it
// (AdminInitiateAuth with ADMIN_USER_PASSWORD_AUTH, or InitiateAuth with USER_PASSWORD_AUTH), so the package has no
// AWS SDK dependency. cognitoVerdict turns that call's answer or error into the three outcomes the sign-in needs.

export type CognitoVerdict = 'OK' | 'WRONG_PASSWORD' | 'RESET_REQUIRED';

export interface CognitoCheckInput {
  /** The Cognito username of the user (the export's `Username`), else the email. */
  username: string;
  email: string;
  password: string;
  /** The user's status in the export (`CONFIRMED`, `FORCE_CHANGE_PASSWORD`, `RESET_REQUIRED`, ...). */
  userStatus?: string;
}

export interface CognitoOptions {
  /** Ask the old pool whether the password is right; answer with cognitoVerdict(...) of the call. */
  checkPassword: (input: CognitoCheckInput) => Promise<CognitoVerdict>;
}

/**
 * The verdict of an InitiateAuth/AdminInitiateAuth answer (`{ AuthenticationResult }` or `{ ChallengeName }`) or
 * of the error it threw. A temporary password (FORCE_CHANGE_PASSWORD: the NEW_PASSWORD_REQUIRED challenge) and
 * PasswordResetRequiredException go to reset: such a password is never taken over. Other errors are thrown on.
 */
export function cognitoVerdict(answer: unknown, error?: unknown): CognitoVerdict {
  if (error !== undefined) {
    const name = (error as { name?: string; __type?: string }).name ?? (error as { __type?: string }).__type ?? '';
    if (name === 'NotAuthorizedException' || name === 'UserNotFoundException') return 'WRONG_PASSWORD';
    if (name === 'PasswordResetRequiredException') return 'RESET_REQUIRED';
    throw error;
  }
  const a = (answer ?? {}) as { AuthenticationResult?: unknown; ChallengeName?: string };
  if (a.AuthenticationResult) return 'OK';
  if (a.ChallengeName === 'NEW_PASSWORD_REQUIRED') return 'RESET_REQUIRED';
  // Any other challenge (MFA, ...) means the password was right.
  if (a.ChallengeName) return 'OK';
  return 'WRONG_PASSWORD';
}
