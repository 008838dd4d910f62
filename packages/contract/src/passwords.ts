import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './constants.js';

/**
 * The rule of a new password, whatever door sets it: its lengths are constants.ts's
 * PASSWORD_MIN_LENGTH and PASSWORD_MAX_LENGTH (beside the browser's other constants, so its bundles
 * take them without a chunk of their own), its schema console-people-api.ts's NewPassword.
 *
 * What is wrong with a new password, in the words every door answers with; undefined when it is one. */
export function newPasswordProblem(password: string): string | undefined {
  const length = [...password].length;
  return length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH
    ? `the password must have ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`
    : undefined;
}
