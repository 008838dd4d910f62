import { PAGE_PREFETCH_ELEMENT_ID } from '@dea/contract';

/**
 * Asks the browser to fetch the page's files the server named (the page follows sign-in), once
 * the login form has loaded and the browser is idle, so they do not compete with what the form
 * needs and are in the cache when the page opens. Without the list, nothing.
 */
export function prefetchPageOnceIdle(): void {
  const start = () => {
    if (typeof window.requestIdleCallback === 'function') window.requestIdleCallback(prefetchPage);
    else window.setTimeout(prefetchPage, 0);
  };
  if (document.readyState === 'complete') start();
  else window.addEventListener('load', start, { once: true });
}

export function prefetchPage(): void {
  const block = document.getElementById(PAGE_PREFETCH_ELEMENT_ID);
  if (block === null) return;
  block.remove();
  let addresses: unknown;
  try {
    addresses = JSON.parse(block.textContent ?? '');
  } catch {
    return;
  }
  if (!Array.isArray(addresses)) return;
  for (const address of addresses) {
    // Only the page's own files, from this origin.
    if (typeof address !== 'string' || !address.startsWith('/') || address.startsWith('//')) continue;
    const link = document.createElement('link');
    link.rel = 'prefetch';
    link.href = address;
    link.crossOrigin = '';
    document.head.append(link);
  }
}
