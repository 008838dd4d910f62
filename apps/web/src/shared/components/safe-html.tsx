import { createElement, useMemo, type ReactNode } from 'react';
import { sanitizeHtml } from '../sanitize-html';

const VOID_ELEMENTS = new Set(['br', 'hr', 'img']);
const REACT_NAMES: Readonly<Record<string, string>> = {
  class: 'className',
  datetime: 'dateTime',
  hreflang: 'hrefLang',
};

/** A sanitized node as a React node: what it is made of has passed the allowlist already. */
function toReact(node: ChildNode, key: number): ReactNode {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent;
  if (!(node instanceof Element)) return null;
  const props: Record<string, unknown> = { key };
  for (const { name, value } of Array.from(node.attributes)) {
    props[REACT_NAMES[name] ?? name] = name === 'reversed' ? true : value;
  }
  const tag = node.localName;
  if (VOID_ELEMENTS.has(tag)) return createElement(tag, props);
  return createElement(tag, props, ...Array.from(node.childNodes, toReact));
}

/** Administrator HTML (branding), sanitized and rendered as React elements. */
export function SafeHtml({ html }: { html: string }) {
  const nodes = useMemo(() => Array.from(sanitizeHtml(html).childNodes, toReact), [html]);
  return <>{nodes}</>;
}
