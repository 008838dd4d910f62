import DOMPurify from 'dompurify';
import { hasControlCharacter } from './control-characters';

/**
 * Branding HTML is written by an administrator, but it is still HTML from the server rendered
 * into a page that holds a live emergency code, so it passes one allowlist: formatting and links
 * and images only. Scripts, event handlers, `javascript:` and other active URLs, frames, forms,
 * embedded objects, SVG/MathML and inline styles are removed (styling belongs in the CSS entry).
 *
 * The allowlist is DOMPurify's configuration (it knows the parser quirks behind mutation XSS),
 * with three hooks for what a flat configuration cannot say: attributes per element, this page's
 * URL rules (`safeUrl`), and links that open a new window. The answer is a DOM fragment that
 * `SafeHtml` turns into React elements, so the cleaned markup is never parsed a second time.
 */
const KEPT_ELEMENTS = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'blockquote',
  'br',
  'cite',
  'code',
  'dd',
  'del',
  'dfn',
  'div',
  'dl',
  'dt',
  'em',
  'figcaption',
  'figure',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'i',
  'img',
  'ins',
  'kbd',
  'li',
  'mark',
  'ol',
  'p',
  'pre',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strong',
  'sub',
  'sup',
  'time',
  'u',
  'ul',
  'var',
]);

/** Dropped together with everything inside them. */
const DROPPED_ELEMENTS = new Set([
  'applet',
  'audio',
  'base',
  'button',
  'canvas',
  'datalist',
  'dialog',
  'embed',
  'fieldset',
  'form',
  'frame',
  'frameset',
  'head',
  'iframe',
  'input',
  'link',
  'math',
  'meta',
  'noembed',
  'noframes',
  'noscript',
  'object',
  'option',
  'optgroup',
  'output',
  'param',
  'picture',
  'portal',
  'script',
  'select',
  'slot',
  'source',
  'style',
  'svg',
  'template',
  'textarea',
  'title',
  'track',
  'video',
]);

const GLOBAL_ATTRIBUTES = new Set(['class', 'dir', 'lang', 'title']);
const ELEMENT_ATTRIBUTES: Readonly<Record<string, ReadonlySet<string>>> = {
  a: new Set(['href', 'target', 'rel', 'hreflang']),
  img: new Set(['src', 'alt', 'width', 'height']),
  time: new Set(['datetime']),
  bdo: new Set(['dir']),
  ol: new Set(['start', 'reversed']),
  q: new Set(['cite']),
  blockquote: new Set(['cite']),
};
const URL_ATTRIBUTES = new Set(['href', 'src', 'cite']);
const LINK_PROTOCOLS = new Set(['http:', 'https:', 'mailto:', 'tel:']);
const IMAGE_DATA_URL = /^data:image\/(?:png|gif|jpe?g|webp|avif|svg\+xml)[;,]/i;

/** A URL attribute value, or undefined when it could do anything but link or show an image. */
export function safeUrl(value: string, kind: 'link' | 'image'): string | undefined {
  const trimmed = value.trim();
  if (hasControlCharacter(trimmed)) return undefined;
  if (kind === 'image' && IMAGE_DATA_URL.test(trimmed)) return trimmed;
  let url: URL;
  try {
    url = new URL(trimmed, window.location.href);
  } catch {
    return undefined;
  }
  const allowed =
    kind === 'image'
      ? url.protocol === 'http:' || url.protocol === 'https:'
      : LINK_PROTOCOLS.has(url.protocol);
  return allowed ? trimmed : undefined;
}

const PURIFY_ATTRIBUTES = [
  ...GLOBAL_ATTRIBUTES,
  ...Object.values(ELEMENT_ATTRIBUTES).flatMap((attributes) => [...attributes]),
];

const purify = DOMPurify(window);

purify.addHook('uponSanitizeAttribute', (element, data) => {
  const tag = element.localName.toLowerCase();
  if (!GLOBAL_ATTRIBUTES.has(data.attrName) && !ELEMENT_ATTRIBUTES[tag]?.has(data.attrName)) {
    data.keepAttr = false;
  } else if (URL_ATTRIBUTES.has(data.attrName)) {
    const url = safeUrl(data.attrValue, tag === 'img' ? 'image' : 'link');
    if (url === undefined) data.keepAttr = false;
    else {
      data.attrValue = url;
      // safeUrl has decided; DOMPurify's own URL rule would refuse image data URLs.
      data.forceKeepAttr = true;
    }
  }
});

purify.addHook('afterSanitizeAttributes', (element) => {
  if (element.localName === 'a' && element.hasAttribute('target')) {
    // A new window must not be able to reach back into this page.
    element.setAttribute('target', '_blank');
    element.setAttribute('rel', 'noopener noreferrer');
  }
});

/** Administrator HTML reduced to the allowlist, as a fragment of this document. */
export function sanitizeHtml(html: string): DocumentFragment {
  return purify.sanitize(html, {
    RETURN_DOM_FRAGMENT: true,
    ALLOWED_TAGS: [...KEPT_ELEMENTS],
    ALLOWED_ATTR: PURIFY_ATTRIBUTES,
    // Unknown wrappers (font, center, section...) give way to their content; these go with theirs.
    FORBID_CONTENTS: [...DROPPED_ELEMENTS],
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
  });
}
