import { describe, expect, it } from 'vitest';
import { PRODUCT_LOGO, showProductIcon } from '../shared/product-icon';
import logo from './logo.svg?raw';

const ENTRIES = import.meta.glob<string>('../../entries/**/index.html', {
  query: '?raw',
  import: 'default',
  eager: true,
});

describe("the product's icon (no request of its own)", () => {
  it('is named by no HTML, where each named a file the browser fetched', () => {
    expect(Object.keys(ENTRIES).length).toBeGreaterThanOrEqual(4);
    for (const [entry, html] of Object.entries(ENTRIES)) expect(html, entry).not.toMatch(/rel="icon"/);
  });

  it('is set by the script as the logo itself, a data: URL, once', () => {
    for (const link of document.head.querySelectorAll('link[rel="icon"]')) link.remove();
    showProductIcon();
    showProductIcon();
    const links = [...document.head.querySelectorAll<HTMLLinkElement>('link[rel="icon"]')];
    expect(links.map((link) => link.getAttribute('href'))).toEqual([PRODUCT_LOGO]);
    expect(PRODUCT_LOGO).toMatch(/^data:image\/svg\+xml/);
    links[0]?.remove();
  });

  it('is a small SVG', () => {
    expect(logo.length).toBeLessThan(400);
    expect(logo).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  });
});
