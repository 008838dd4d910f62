import type { Filter } from 'ldapts';
import { anyOf, equals } from './ldap-filters.js';

/** What the forms of a login name are read against. */
export interface LoginNameRules {
  /** Active Directory (DEA_LDAP_ACTIVE_DIRECTORY): the three forms below; elsewhere the attribute alone. */
  activeDirectory: boolean;
  /** The attribute the product's user name comes from (sAMAccountName, userPrincipalName, uid, ...). */
  usernameAttribute: string;
  /** The NetBIOS name of the domain (DEA_LDAP_AD_DOMAIN), lower case. */
  netbiosDomain: string;
  /** The domain's DNS name, from DEA_LDAP_BASE_DN, lower case: name@realm is an implicit principal name. */
  realm: string;
}

/**
 * The filter part that finds the person a typed (canonical) login name means. On Active Directory
 * a person signs in by any of the names Windows takes: `sAMAccountName`, `userPrincipalName`
 * (explicit, or the implicit name@realm) or `DOMAIN\name`; all find the one entry, whose
 * configured user name attribute is the person's one user name in the product (ADR 0016), and
 * the sign-in limits count on that entry whatever form was typed. Undefined: the name cannot be
 * anyone's (another domain before the backslash).
 */
export function loginNameFilter(rules: LoginNameRules, name: string): Filter | undefined {
  if (!rules.activeDirectory) return equals(rules.usernameAttribute, name);
  const backslash = name.indexOf('\\');
  if (backslash >= 0) {
    const domain = name.slice(0, backslash).toLowerCase();
    const account = name.slice(backslash + 1);
    if (domain !== rules.netbiosDomain || account === '' || account.includes('\\')) return undefined;
    return equals('sAMAccountName', account);
  }
  // The same term twice (the user name attribute is sAMAccountName) is asked once.
  const terms = new Map<string, Filter>();
  const add = (term: Filter) => terms.set(term.toString(), term);
  add(equals(rules.usernameAttribute, name));
  const at = name.lastIndexOf('@');
  if (at < 0) {
    add(equals('sAMAccountName', name));
  } else {
    // sAMAccountName never holds "@": a name with one is a principal name, or account@realm.
    add(equals('userPrincipalName', name));
    const account = name.slice(0, at);
    if (account !== '' && name.slice(at + 1).toLowerCase() === rules.realm)
      add(equals('sAMAccountName', account));
  }
  return anyOf(...terms.values());
}
