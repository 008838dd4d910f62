import { describe, expect, it } from 'vitest';
import { accountProblemOf } from './active-directory-reasons.js';
import { loginNameFilter } from './login-names.js';

/** Active Directory's diagnostic message of a refused bind, as Windows and Samba send it. */
const refusal = (code: string) =>
  `80090308: LdapErr: DSID-0C09030B, comment: AcceptSecurityContext error, data ${code}, v4563`;

describe("Active Directory's reasons for refusing a bind", () => {
  it('reads each sub-reason from the data code, and a wrong password or unknown user as none', () => {
    expect(
      Object.fromEntries(
        ['773', '775', '532', '533', '701', '530', '531', '52e', '525'].map((code) => [
          code,
          accountProblemOf(refusal(code)),
        ]),
      ),
    ).toEqual({
      '773': 'must-change-password',
      '775': 'locked',
      '532': 'password-expired',
      '533': 'disabled',
      '701': 'account-expired',
      '530': 'not-allowed-now',
      '531': 'not-allowed-here',
      '52e': undefined,
      '525': undefined,
    });
    expect(accountProblemOf('Invalid Credentials')).toBeUndefined();
  });
});

describe('the forms of a login name', () => {
  const ad = {
    activeDirectory: true,
    usernameAttribute: 'sAMAccountName',
    netbiosDomain: 'corp',
    realm: 'corp.example.com',
  };

  it('finds the one entry by sAMAccountName, userPrincipalName or DOMAIN\\name, escaped', () => {
    expect(loginNameFilter(ad, 'alice')?.toString()).toBe('(sAMAccountName=alice)');
    expect(loginNameFilter(ad, 'corp\\alice')?.toString()).toBe('(sAMAccountName=alice)');
    expect(loginNameFilter(ad, 'alice@corp.example.com')?.toString()).toBe(
      '(|(sAMAccountName=alice@corp.example.com)(userPrincipalName=alice@corp.example.com)(sAMAccountName=alice))',
    );
    expect(loginNameFilter(ad, 'alice@other.example')?.toString()).toBe(
      '(|(sAMAccountName=alice@other.example)(userPrincipalName=alice@other.example))',
    );
    expect(loginNameFilter(ad, 'other\\alice')?.toString()).toBeUndefined();
    expect(loginNameFilter(ad, 'corp\\')?.toString()).toBeUndefined();
    expect(loginNameFilter(ad, 'a*)(uid=*')?.toString()).toBe('(sAMAccountName=a\\2a\\29\\28uid=\\2a)');
    expect(loginNameFilter({ ...ad, usernameAttribute: 'userPrincipalName' }, 'alice')?.toString()).toBe(
      '(|(userPrincipalName=alice)(sAMAccountName=alice))',
    );
  });

  it('elsewhere takes the user name attribute alone, a backslash included', () => {
    expect(
      loginNameFilter({ ...ad, activeDirectory: false, usernameAttribute: 'uid' }, 'corp\\alice')?.toString(),
    ).toBe('(uid=corp\\5calice)');
  });
});
