import { createElement, useMemo, type ReactNode } from 'react';
import { sanitizeHtml, type SafeNode } from '../sanitize-html';

const VOID_ELEMENTS = new Set(['br', 'hr', 'img']);
const REACT_NAMES: Readonly<Record<string, string>> = {
  class: 'className',
  datetime: 'dateTime',
  hreflang: 'hrefLang',
};

function toReact(node: SafeNode, key: number): ReactNode {
  if (typeof node === 'string') return node;
  const props: Record<string, unknown> = { key };
  for (const [name, value] of Object.entries(node.attributes)) {
    props[REACT_NAMES[name] ?? name] = name === 'reversed' ? true : value;
  }
  if (VOID_ELEMENTS.has(node.tag)) return createElement(node.tag, props);
  return createElement(node.tag, props, ...node.children.map(toReact));
}

/** Administrator HTML (branding), sanitized and rendered as React elements. */
export function SafeHtml({ html }: { html: string }) {
  const nodes = useMemo(() => sanitizeHtml(html), [html]);
  return <>{nodes.map(toReact)}</>;
}
