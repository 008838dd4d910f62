import type { DirectoryConfig } from './directory-settings.js';
import { LdapDirectory } from './ldap-directory.js';

/** Names the warning lists. */
const SHOWN = 20;

/**
 * What the start says when accounts Active Directory protects as administrators (adminCount=1)
 * may sign in (DEA_LDAP_AD_PROTECTED_ADMINS): the ones the user filter takes in, by name, or
 * undefined when it takes none. Their domain passwords would then be sent here.
 */
export async function protectedAdminsWarning(directory: LdapDirectory): Promise<string | undefined> {
  const names = await directory.protectedAdmins(SHOWN + 1);
  if (names.length === 0) return undefined;
  const shown = names.slice(0, SHOWN).join(', ') + (names.length > SHOWN ? ' and more' : '');
  return `DEA_LDAP_AD_PROTECTED_ADMINS is true and the user filter takes in accounts Active Directory protects as administrators (adminCount=1): ${shown}; they can sign in here with their domain password. Set DEA_LDAP_AD_PROTECTED_ADMINS to false, or narrow DEA_LDAP_USER_FILTER, unless they must`;
}

/**
 * At the start, in the background: the warning above, or when the directory cannot be asked, that
 * any such account could sign in (with the cause).
 */
export function warnOfProtectedAdmins(config: DirectoryConfig, log: { warn(message: string): void }): void {
  const directory = new LdapDirectory(config);
  void (async () => {
    try {
      const warning = await protectedAdminsWarning(directory);
      if (warning !== undefined) log.warn(warning);
    } catch (error) {
      log.warn(
        `DEA_LDAP_AD_PROTECTED_ADMINS is true: accounts Active Directory protects as administrators (adminCount=1) can sign in here with their domain password (which of them the filter takes could not be asked: ${(error as Error).message}); set it to false unless they must`,
      );
    } finally {
      // Closing the connections it opened; a failure to close changes nothing for the start.
      await directory.close().catch(() => undefined);
    }
  })();
}
