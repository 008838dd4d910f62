// @vitest-environment jsdom
// jsdom, like a browser, keeps its node iterators right while DOMPurify removes nodes; happy-dom
// does not (its iterator skips the node after a removed one), so this file runs in jsdom.
import { describe, expect, it } from 'vitest';
import { sanitizeHtml, safeUrl } from './sanitize-html';

/** The sanitized fragment written back as markup, to compare against expectations. */
function clean(html: string): string {
  const holder = document.createElement('div');
  holder.append(sanitizeHtml(html));
  return holder.innerHTML;
}

describe('sanitizeHtml', () => {
  it('keeps formatting, links and images', () => {
    expect(clean('<b>Acme</b> <a href="https://acme.test/help" title="Help">help</a>')).toBe(
      '<b>Acme</b> <a href="https://acme.test/help" title="Help">help</a>',
    );
    expect(clean('<img src="/logo.png" alt="Acme">')).toBe('<img src="/logo.png" alt="Acme">');
  });

  it('removes scripts, styles, frames, forms, objects and SVG with their content', () => {
    const dropped = [
      '<script>alert(1)</script>',
      '<style>body{display:none}</style>',
      '<iframe title="x"></iframe>',
      '<frameset><frame src="x"></frameset>',
      '<form action="https://evil.test"><input name="code"><button>Go</button></form>',
      '<object data="x.swf"></object><embed src="x.swf">',
      '<svg><script>alert(1)</script></svg>',
      '<math><mi>x</mi></math>',
      '<template><img src=x onerror=alert(1)></template>',
      '<noscript><img src=x onerror=alert(1)></noscript>',
    ];
    // The text after an unclosed foreign element may end up inside it, and go with it.
    for (const html of dropped) expect(clean(`a${html}b`)).toMatch(/^ab?$/);
  });

  it('removes event handlers and inline styles', () => {
    expect(clean('<img src="/a.png" onerror="alert(1)" style="x">')).toBe('<img src="/a.png">');
    expect(clean('<p onclick="alert(1)" onmouseover="alert(2)">hi</p>')).toBe('<p>hi</p>');
  });

  it('removes active URLs in every spelling', () => {
    for (const href of [
      'javascript:alert(1)',
      'JAVASCRIPT:alert(1)',
      ' javascript:alert(1)',
      'java\tscript:alert(1)',
      'jav&#x61;script:alert(1)',
      '&#106;avascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
    ]) {
      expect(clean(`<a href="${href}">x</a>`)).toBe('<a>x</a>');
    }
    expect(clean('<img src="javascript:alert(1)">')).toBe('<img>');
    expect(clean('<img src="data:text/html;base64,AAAA">')).toBe('<img>');
  });

  it('keeps image data URLs in images only', () => {
    expect(clean('<img src="data:image/png;base64,iVBORw0KGgo=">')).toBe(
      '<img src="data:image/png;base64,iVBORw0KGgo=">',
    );
    expect(clean('<a href="data:image/png;base64,iVBORw0KGgo=">x</a>')).toBe('<a>x</a>');
  });

  it('opens new windows without a way back into the page', () => {
    expect(clean('<a href="https://acme.test" target="_top">x</a>')).toBe(
      '<a href="https://acme.test" target="_blank" rel="noopener noreferrer">x</a>',
    );
  });

  it('keeps the text of unknown wrappers', () => {
    expect(clean('<center><font color="red">Acme</font></center>')).toBe('Acme');
  });

  it('survives mutation-style markup', () => {
    // What counts is the tree the page renders (never parsed again): no element carries a
    // handler, and markup hidden in an attribute stays text.
    for (const html of [
      '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>',
      '<form><math><mtext></form><form><mglyph><style></math><img src onerror=alert(1)>',
    ]) {
      const holder = document.createElement('div');
      holder.append(sanitizeHtml(html));
      const attributes = [...holder.querySelectorAll('*')].flatMap((element) =>
        [...element.attributes].map((attribute) => attribute.name),
      );
      expect(attributes.filter((name) => name.startsWith('on'))).toEqual([]);
      expect(holder.querySelectorAll('img[src="x"], math, style')).toHaveLength(0);
    }
  });
});

describe('safeUrl', () => {
  it('allows web, mail and phone links and relative URLs', () => {
    expect(safeUrl('https://acme.test', 'link')).toBe('https://acme.test');
    expect(safeUrl('mailto:help@acme.test', 'link')).toBe('mailto:help@acme.test');
    expect(safeUrl('tel:+4930555', 'link')).toBe('tel:+4930555');
    expect(safeUrl('/help', 'link')).toBe('/help');
  });

  it('refuses anything else', () => {
    expect(safeUrl('javascript:alert(1)', 'link')).toBeUndefined();
    expect(safeUrl('mailto:x', 'image')).toBeUndefined();
    expect(safeUrl('https://acme.test/\u0000', 'image')).toBeUndefined();
  });
});
