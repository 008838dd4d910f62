import { LOCAL_STORAGE_KEYS, SESSION_STORAGE_KEYS } from '@dea/contract';
import { readStorage, writeStorage } from '../../shared/storage';

/** The user's own choice, which wins over every other source next time (spec section 4). */
export function readChosenLanguage(): string | undefined {
  return readStorage('local', LOCAL_STORAGE_KEYS.lang);
}

export function rememberChosenLanguage(languageCode: string): void {
  writeStorage('local', LOCAL_STORAGE_KEYS.lang, languageCode);
}

/** The language in use is also kept for the session (spec sections 4 and 9). */
export function keepSessionLanguage(languageCode: string): void {
  writeStorage('session', SESSION_STORAGE_KEYS.lang, languageCode);
}
