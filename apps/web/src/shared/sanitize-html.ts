import DOMPurify from 'dompurify';
import { hasControlCharacter } from './control-characters';

/**
 * Branding HTML is written by an administrator, but it is still HTML from the server rendered
 * into a page that holds a live emergency code, so it passes an allowlist: formatting and links
 * and images only. Scripts, event handlers, `javascript:` and other active URLs, frames, forms,
 * embedded objects, SVG/MathML and inline styles are removed (styling belongs in the CSS entry).
 *
 * DOMPurify parses and cleans the input first (it knows the parser quirks behind mutation XSS);
 * the walker below then keeps only this page's allowlist and URL rules, and answers a tree of
 * plain data that the page turns into React elements itself, so the cleaned markup is never
 * parsed a second time.
 */
export type SafeNode = string | SafeElement;

export interface SafeElement {
  tag: string;
  attributes: Readonly<Record<string, string>>;
  children: readonly SafeNode[];
}

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

function sanitizeAttributes(element: Element, tag: string): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const { name, value } of Array.from(element.attributes)) {
    const attribute = name.toLowerCase();
    if (!GLOBAL_ATTRIBUTES.has(attribute) && !ELEMENT_ATTRIBUTES[tag]?.has(attribute)) continue;
    if (URL_ATTRIBUTES.has(attribute)) {
      const url = safeUrl(value, tag === 'img' ? 'image' : 'link');
      if (url !== undefined) kept[attribute] = url;
    } else {
      kept[attribute] = value;
    }
  }
  if (tag === 'a' && kept.target !== undefined) {
    // A new window must not be able to reach back into this page.
    kept.target = '_blank';
    kept.rel = 'noopener noreferrer';
  }
  return kept;
}

function sanitizeChildren(parent: ParentNode): SafeNode[] {
  const nodes: SafeNode[] = [];
  for (const node of Array.from(parent.childNodes)) {
    if (node.nodeType === Node.TEXT_NODE) {
      const text = node.textContent ?? '';
      if (text !== '') nodes.push(text);
      continue;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) continue;
    const element = node as Element;
    const tag = element.localName.toLowerCase();
    if (element.namespaceURI !== 'http://www.w3.org/1999/xhtml' || DROPPED_ELEMENTS.has(tag)) continue;
    const children = sanitizeChildren(element);
    if (KEPT_ELEMENTS.has(tag)) {
      nodes.push({ tag, attributes: sanitizeAttributes(element, tag), children });
    } else {
      // Unknown wrappers (font, center, section...) give way to their content.
      nodes.push(...children);
    }
  }
  return nodes;
}

const PURIFY_ATTRIBUTES = [
  ...GLOBAL_ATTRIBUTES,
  ...Object.values(ELEMENT_ATTRIBUTES).flatMap((attributes) => [...attributes]),
];

export function sanitizeHtml(html: string): SafeNode[] {
  const fragment = DOMPurify.sanitize(html, {
    RETURN_DOM_FRAGMENT: true,
    ALLOWED_TAGS: [...KEPT_ELEMENTS],
    ALLOWED_ATTR: PURIFY_ATTRIBUTES,
    FORBID_CONTENTS: [...DROPPED_ELEMENTS],
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
  });
  return sanitizeChildren(fragment);
}
