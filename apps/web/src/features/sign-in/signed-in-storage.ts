import { SESSION_STORAGE_KEYS } from '@dea/contract';
import { forgetStoredCode } from '../../shared/code-storage';
import { writeStorage } from '../../shared/storage';

/**
 * A new session begins in this tab: its user name is kept for the next sign-in (spec sections 8
 * and 9), and a code left in the tab by an earlier session is forgotten, so that a different
 * user never sees it.
 */
export function rememberSignedInUser(username: string): void {
  forgetStoredCode();
  writeStorage('session', SESSION_STORAGE_KEYS.username, username);
}
