/**
 * Web storage that never throws: storage can be disabled or full (private windows, quotas), and
 * the page must still work without it.
 */
function area(kind: 'local' | 'session'): Storage | undefined {
  try {
    return kind === 'local' ? window.localStorage : window.sessionStorage;
  } catch {
    return undefined;
  }
}

export function readStorage(kind: 'local' | 'session', key: string): string | undefined {
  try {
    return area(kind)?.getItem(key) ?? undefined;
  } catch {
    return undefined;
  }
}

export function writeStorage(kind: 'local' | 'session', key: string, value: string): void {
  try {
    area(kind)?.setItem(key, value);
  } catch {
    // Without storage the value lives only as long as the page; nothing to tell the user.
  }
}

export function removeStorage(kind: 'local' | 'session', key: string): void {
  try {
    area(kind)?.removeItem(key);
  } catch {
    // See writeStorage.
  }
}
