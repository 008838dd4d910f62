import { expect } from 'vitest';

/**
 * The three DOM assertions the tests need (jest-dom is not a dependency of this workspace).
 * `toBeVisible` means: in the document and not hidden by an attribute or inline style on the
 * way up (stylesheets are not loaded in component tests).
 */
function isVisible(element: Element): boolean {
  if (!element.isConnected) return false;
  for (let node: Element | null = element; node; node = node.parentElement) {
    if (node.hasAttribute('hidden')) return false;
    const style = node instanceof HTMLElement ? node.style : undefined;
    if (style?.display === 'none' || style?.visibility === 'hidden') return false;
  }
  return true;
}

expect.extend({
  toHaveTextContent(received: Element, expected: string | RegExp) {
    const actual = received.textContent ?? '';
    const pass =
      typeof expected === 'string'
        ? expected === ''
          ? actual === ''
          : actual.includes(expected)
        : expected.test(actual);
    return {
      pass,
      message: () =>
        `expected element text ${JSON.stringify(actual)} ${pass ? 'not ' : ''}to contain ${String(expected)}`,
    };
  },
  toBeVisible(received: Element) {
    const pass = isVisible(received);
    return { pass, message: () => `expected element ${pass ? 'not ' : ''}to be visible` };
  },
  toBeEmptyDOMElement(received: Element) {
    const pass = received.childNodes.length === 0;
    return {
      pass,
      message: () => `expected element ${pass ? 'not ' : ''}to be empty, it holds ${received.innerHTML}`,
    };
  },
});

interface DomMatchers<R = unknown> {
  toHaveTextContent: (expected: string | RegExp) => R;
  toBeVisible: () => R;
  toBeEmptyDOMElement: () => R;
}

declare module 'vitest' {
  // The augmented interface must repeat vitest's own type parameter, `any` default included.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any, @typescript-eslint/no-empty-object-type
  interface Matchers<T = any> extends DomMatchers<T> {}
}
