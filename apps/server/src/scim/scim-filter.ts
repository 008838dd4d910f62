import { ScimError } from './scim-error.js';

/** One `attribute eq "value"` of a filter; the attribute in lower case (SCIM names are case-insensitive). */
export interface Equality {
  attribute: string;
  value: string;
}

const CLAUSE = /^\s*([A-Za-z][\w.:-]*)\s+eq\s+("(?:[^"\\]|\\.)*"|true|false)\s*/i;

/**
 * The filters provisioning clients send (RFC 7644 section 3.4.2.2): `userName eq "alice"`,
 * `externalId eq "…"`, `displayName eq "VPN"`, `id eq "…"`, joined by `and`. Anything else is
 * answered `invalidFilter`, naming what is offered.
 */
export function parseFilter(filter: string, attributes: readonly string[]): Equality[] {
  const clauses: Equality[] = [];
  let rest = filter;
  for (;;) {
    const match = CLAUSE.exec(rest);
    if (match === null) throw unsupported(filter, attributes);
    const [whole, name = '', literal = ''] = match;
    const attribute = name.toLowerCase();
    if (!attributes.includes(attribute)) throw unsupported(filter, attributes);
    clauses.push({
      attribute,
      value: literal.startsWith('"') ? stringLiteral(literal, filter, attributes) : literal,
    });
    rest = rest.slice(whole.length);
    if (rest === '') return clauses;
    const and = /^and\s+/i.exec(rest);
    if (and === null) throw unsupported(filter, attributes);
    rest = rest.slice(and[0].length);
  }
}

function unsupported(filter: string, attributes: readonly string[]): ScimError {
  return new ScimError(
    400,
    `the filter ${JSON.stringify(filter)} is not offered: only <attribute> eq "<value>" joined by and, on ${attributes.join(', ')}`,
    'invalidFilter',
  );
}

function stringLiteral(literal: string, filter: string, attributes: readonly string[]): string {
  try {
    return JSON.parse(literal) as string;
  } catch {
    throw unsupported(filter, attributes);
  }
}
