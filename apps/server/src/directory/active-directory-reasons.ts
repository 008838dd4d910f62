import type { DirectoryAccountProblem } from '../domain/identity/user-directory.js';

/**
 * Active Directory's sub-reasons of a refused bind: the hexadecimal `data` code of the diagnostic
 * message ("80090308: LdapErr: DSID-0C09030B, comment: AcceptSecurityContext error, data 773,
 * v4563"). AD sends these, except 775, only once the password was right: the account is what is
 * refused. 52e (wrong password) and 525 (no such user) are plain refusals.
 */
const PROBLEM_OF_CODE: Readonly<Record<string, DirectoryAccountProblem>> = {
  '773': 'must-change-password',
  '775': 'locked',
  '532': 'password-expired',
  '533': 'disabled',
  '701': 'account-expired',
  '530': 'not-allowed-now',
  '531': 'not-allowed-here',
};

/** The account problem a refused bind's diagnostic message names, or undefined for a plain refusal. */
export function accountProblemOf(diagnostic: string): DirectoryAccountProblem | undefined {
  const code = /\bdata\s+([0-9a-f]+)\b/i.exec(diagnostic)?.[1]?.toLowerCase();
  return code === undefined ? undefined : PROBLEM_OF_CODE[code];
}
