import Type from 'typebox';

/**
 * The rule of a new password, whatever door sets it (the CLI, the console, a password link, SCIM):
 * at least 8 characters (NIST SP 800-63B), at most 1,024, which keeps hashing cheap. Characters
 * are Unicode code points, as JSON Schema counts them. A password given to sign in is only bounded
 * (SignInRequest): an older one may be shorter.
 */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 1024;

/** A new password as a request's body field. */
export const NewPassword = Type.String({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH });

/** What is wrong with a new password, in the words every door answers with; undefined when it is one. */
export function newPasswordProblem(password: string): string | undefined {
  const length = [...password].length;
  return length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH
    ? `the password must have ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`
    : undefined;
}
