import type { CompareOp, RowFilter, RowOrder } from '../store/store.js';
import { ScimError } from './scim-error.js';

/** A filter as RFC 7644 section 3.4.2.2 writes it; attribute names in lower case, URN left out. */
export type ScimFilter =
  | { kind: 'and' | 'or'; left: ScimFilter; right: ScimFilter }
  | { kind: 'not'; filter: ScimFilter }
  | { kind: 'pr'; attribute: string }
  | { kind: 'compare'; attribute: string; op: CompareOp; value: string | number | boolean | null };

const OPS: readonly CompareOp[] = ['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le'];

const invalid = (filter: string, why: string): ScimError =>
  new ScimError(400, `the filter ${JSON.stringify(filter)} is not valid: ${why}`, 'invalidFilter');

type Token = { kind: '(' | ')' } | { kind: 'word'; text: string } | { kind: 'value'; value: string | number };

function tokens(filter: string): Token[] {
  const found: Token[] = [];
  const pattern =
    /\s*(?:(\()|(\))|("(?:[^"\\]|\\.)*")|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(?![\w.:])|([A-Za-z$][\w.:$-]*))/y;
  let at = 0;
  while (at < filter.length) {
    if (/^\s*$/.test(filter.slice(at))) break;
    pattern.lastIndex = at;
    const match = pattern.exec(filter);
    if (match === null) throw invalid(filter, `unexpected text at ${at + 1}: ${filter.slice(at, at + 20)}`);
    at = pattern.lastIndex;
    const [, open, close, string, number, word] = match;
    if (open !== undefined) found.push({ kind: '(' });
    else if (close !== undefined) found.push({ kind: ')' });
    else if (string !== undefined) {
      try {
        found.push({ kind: 'value', value: JSON.parse(string) as string });
      } catch {
        throw invalid(filter, `the string ${string} does not decode`);
      }
    } else if (number !== undefined) found.push({ kind: 'value', value: Number(number) });
    else found.push({ kind: 'word', text: word ?? '' });
  }
  return found;
}

const CORE_URNS = [
  'urn:ietf:params:scim:schemas:core:2.0:user:',
  'urn:ietf:params:scim:schemas:core:2.0:group:',
];

/**
 * Parses a filter: `attribute op value`, `attribute pr`, joined by `and` (binding closer) and
 * `or`, negated by `not ( … )`, grouped by parentheses. Value filters on a multi-valued attribute
 * (`emails[type eq "work"]`) are not offered: answered invalidFilter.
 */
export function parseFilter(filter: string): ScimFilter {
  const list = tokens(filter);
  let position = 0;
  const peekWord = (): string | undefined => {
    const token = list[position];
    return token?.kind === 'word' ? token.text.toLowerCase() : undefined;
  };
  const expect = (kind: '(' | ')') => {
    if (list[position]?.kind !== kind) throw invalid(filter, `a "${kind}" is missing`);
    position += 1;
  };
  const or = (): ScimFilter => {
    let left = and();
    while (peekWord() === 'or') {
      position += 1;
      left = { kind: 'or', left, right: and() };
    }
    return left;
  };
  const and = (): ScimFilter => {
    let left = unary();
    while (peekWord() === 'and') {
      position += 1;
      left = { kind: 'and', left, right: unary() };
    }
    return left;
  };
  const unary = (): ScimFilter => {
    const token = list[position];
    if (token?.kind === '(') {
      position += 1;
      const inner = or();
      expect(')');
      return inner;
    }
    if (peekWord() === 'not') {
      position += 1;
      expect('(');
      const inner = or();
      expect(')');
      return { kind: 'not', filter: inner };
    }
    if (token?.kind !== 'word') throw invalid(filter, 'an attribute is missing');
    position += 1;
    let attribute = token.text.toLowerCase();
    for (const urn of CORE_URNS) if (attribute.startsWith(urn)) attribute = attribute.slice(urn.length);
    const op = peekWord();
    if (op === 'pr') {
      position += 1;
      return { kind: 'pr', attribute };
    }
    if (op === undefined || !(OPS as readonly string[]).includes(op))
      throw invalid(filter, `after ${token.text} an operator (${OPS.join(' ')} pr) is missing`);
    position += 1;
    const next = list[position];
    position += 1;
    if (next?.kind === 'value') return { kind: 'compare', attribute, op: op as CompareOp, value: next.value };
    if (next?.kind === 'word' && ['true', 'false', 'null'].includes(next.text.toLowerCase())) {
      const word = next.text.toLowerCase();
      return {
        kind: 'compare',
        attribute,
        op: op as CompareOp,
        value: word === 'null' ? null : word === 'true',
      };
    }
    throw invalid(filter, `after ${token.text} ${op} a value is missing`);
  };
  const result = or();
  if (position < list.length) throw invalid(filter, 'it goes on after a complete expression');
  return result;
}

/**
 * How one attribute maps to what the store compares: a string column (caseExact or not, its
 * value normalised), a boolean kept as its opposite (active: disabled), or a time.
 */
export type AttributeMap<Column extends string> =
  | {
      type: 'string';
      column: Column;
      caseExact: boolean;
      normalise?: (value: string, op: CompareOp) => string;
      /** A condition every match also meets (an own externalId is no client's). */
      also?: RowFilter<Column>;
    }
  | { type: 'negatedBoolean'; column: Column }
  | { type: 'dateTime'; column: Column };

/** The filter as the store evaluates it, each attribute mapped; an attribute not kept is invalidFilter. */
export function rowFilterOf<Column extends string>(
  text: string,
  attributes: Readonly<Record<string, AttributeMap<Column>>>,
): RowFilter<Column> {
  const offered = Object.keys(attributes).join(', ');
  const map = (filter: ScimFilter): RowFilter<Column> => {
    switch (filter.kind) {
      case 'and':
      case 'or':
        return { kind: filter.kind, filters: [map(filter.left), map(filter.right)] };
      case 'not':
        return { kind: 'not', filter: map(filter.filter) };
      case 'pr': {
        const attribute = attributeOf(filter.attribute);
        if (attribute.type !== 'string') return { kind: 'and', filters: [] };
        const present: RowFilter<Column> = { kind: 'present', column: attribute.column };
        return attribute.also === undefined ? present : { kind: 'and', filters: [present, attribute.also] };
      }
      case 'compare':
        return compare(filter);
    }
  };
  const attributeOf = (name: string): AttributeMap<Column> => {
    const found = attributes[name];
    if (found === undefined)
      throw invalid(text, `${name} is no attribute a filter may name here (offered: ${offered})`);
    return found;
  };
  const compare = (filter: Extract<ScimFilter, { kind: 'compare' }>): RowFilter<Column> => {
    const attribute = attributeOf(filter.attribute);
    const { op, value } = filter;
    if (value === null) {
      if (op !== 'eq' && op !== 'ne') throw invalid(text, `null is compared only by eq and ne`);
      const present = map({ kind: 'pr', attribute: filter.attribute });
      return op === 'ne' ? present : { kind: 'not', filter: present };
    }
    switch (attribute.type) {
      case 'negatedBoolean':
        if (typeof value !== 'boolean' || (op !== 'eq' && op !== 'ne'))
          throw invalid(text, `${filter.attribute} is true or false, compared by eq or ne`);
        return {
          kind: 'compare',
          column: attribute.column,
          op: 'eq',
          value: (op === 'eq') === value ? 0 : 1,
        };
      case 'dateTime': {
        const at = typeof value === 'string' ? Date.parse(value) : Number.NaN;
        if (Number.isNaN(at) || ['co', 'sw', 'ew'].includes(op))
          throw invalid(
            text,
            `${filter.attribute} is a time (such as "2026-01-31T12:00:00Z"), compared by eq ne gt ge lt le`,
          );
        return { kind: 'compare', column: attribute.column, op, value: at };
      }
      case 'string': {
        if (typeof value !== 'string') throw invalid(text, `${filter.attribute} is compared with a string`);
        const compared: RowFilter<Column> = {
          kind: 'compare',
          column: attribute.column,
          op,
          value: attribute.normalise?.(value, op) ?? value,
          caseInsensitive: !attribute.caseExact,
        };
        return attribute.also === undefined ? compared : { kind: 'and', filters: [compared, attribute.also] };
      }
    }
  };
  return map(parseFilter(text));
}

/**
 * RFC 7644 section 3.4.2.3: the order sortBy and sortOrder ask for, as the store evaluates it;
 * undefined when no sortBy. Strings that are not case-exact sort without case; a boolean kept as
 * its opposite sorts false first; a resource without a value comes last ascending. An attribute
 * not kept, a multi-valued one, or one with a condition of its own (a user's externalId) is
 * refused as invalidValue, naming those that sort.
 */
export function rowOrderOf<Column extends string>(
  sortBy: string | undefined,
  sortOrder: string | undefined,
  attributes: Readonly<Record<string, AttributeMap<Column>>>,
): RowOrder<Column> | undefined {
  if (sortBy === undefined) {
    if (sortOrder === undefined) return undefined;
    throw new ScimError(400, 'sortOrder is given without sortBy', 'invalidValue');
  }
  const order = (sortOrder ?? 'ascending').toLowerCase();
  if (order !== 'ascending' && order !== 'descending')
    throw new ScimError(400, `sortOrder is ascending or descending, not "${sortOrder}"`, 'invalidValue');
  let name = sortBy.trim().toLowerCase();
  for (const urn of CORE_URNS) if (name.startsWith(urn)) name = name.slice(urn.length);
  const sortable = Object.entries(attributes).filter(
    ([, attribute]) => attribute.type !== 'string' || attribute.also === undefined,
  );
  const found = sortable.find(([each]) => each === name)?.[1];
  if (found === undefined)
    throw new ScimError(
      400,
      `sortBy ${JSON.stringify(sortBy)} is no attribute the results can be sorted by (offered: ${sortable.map(([each]) => each).join(', ')})`,
      'invalidValue',
    );
  const descending = order === 'descending';
  switch (found.type) {
    case 'string':
      return { column: found.column, descending, text: true, caseInsensitive: !found.caseExact };
    case 'negatedBoolean':
      return { column: found.column, descending: !descending };
    case 'dateTime':
      return { column: found.column, descending };
  }
}
