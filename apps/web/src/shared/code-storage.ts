import { SESSION_STORAGE_KEYS, type CreatedCode } from '@dea/contract';
import { readStorage, removeStorage, writeStorage } from './storage';

/**
 * The code on screen survives a reload of the tab (spec section 4), and only the tab. It belongs
 * to one session: whatever ends the session (logout, a 401 or 403) forgets it, so the next user
 * of the same tab never sees it.
 */
export function readStoredCode(): CreatedCode | undefined {
  const password = readStorage('session', SESSION_STORAGE_KEYS.emergencyCode);
  const id = readStorage('session', SESSION_STORAGE_KEYS.emergencyCodeId);
  return password ? { id: id ?? '', password } : undefined;
}

export function storeCode(code: CreatedCode, expiresAt?: number): void {
  writeStorage('session', SESSION_STORAGE_KEYS.emergencyCode, code.password);
  writeStorage('session', SESSION_STORAGE_KEYS.emergencyCodeId, code.id);
  if (expiresAt === undefined) removeStorage('session', SESSION_STORAGE_KEYS.emergencyCodeExpiresAt);
  else writeStorage('session', SESSION_STORAGE_KEYS.emergencyCodeExpiresAt, String(expiresAt));
}

/** When the stored code expires (ms since the epoch); undefined when not known. */
export function readStoredExpiry(): number | undefined {
  const text = readStorage('session', SESSION_STORAGE_KEYS.emergencyCodeExpiresAt);
  const value = text === undefined ? NaN : Number(text);
  return Number.isFinite(value) ? value : undefined;
}

export function forgetStoredCode(): void {
  removeStorage('session', SESSION_STORAGE_KEYS.emergencyCode);
  removeStorage('session', SESSION_STORAGE_KEYS.emergencyCodeId);
  removeStorage('session', SESSION_STORAGE_KEYS.emergencyCodeExpiresAt);
}
