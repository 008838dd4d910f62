import { PAGE_PREFETCH_ELEMENT_ID } from '@dea/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { prefetchPage } from './prefetch-page';

function block(json: string): void {
  const element = document.createElement('script');
  element.type = 'application/json';
  element.id = PAGE_PREFETCH_ELEMENT_ID;
  element.textContent = json;
  document.body.append(element);
}

const prefetched = () =>
  [...document.head.querySelectorAll<HTMLLinkElement>('link[rel="prefetch"]')].map((link) =>
    link.getAttribute('href'),
  );

describe("prefetching the page's files from the login application", () => {
  afterEach(() => {
    document.head.querySelectorAll('link[rel="prefetch"]').forEach((link) => link.remove());
    document.getElementById(PAGE_PREFETCH_ELEMENT_ID)?.remove();
  });

  it('asks for each file the server named, once, from this origin only', () => {
    block(
      JSON.stringify([
        '/dea/assets/dea.js',
        '/dea/assets/dea.css',
        '//elsewhere.example/x.js',
        'https://a.example/y.js',
        3,
      ]),
    );
    prefetchPage();
    prefetchPage();
    expect(prefetched()).toEqual(['/dea/assets/dea.js', '/dea/assets/dea.css']);
    expect(document.head.querySelector('link[rel="prefetch"]')?.getAttribute('crossorigin')).toBe('');
    expect(document.getElementById(PAGE_PREFETCH_ELEMENT_ID)).toBeNull();
  });

  it('does nothing without the list or with one it cannot read', () => {
    prefetchPage();
    block('not json');
    prefetchPage();
    expect(prefetched()).toEqual([]);
  });
});
