import { ScimError } from './scim-error.js';
import { SCIM, type ScimPatch } from './scim-schemas.js';

type Resource = Record<string, unknown>;
type Operation = ScimPatch['Operations'][number];

/** The attribute names this server keeps, in their canonical spelling (names are case-insensitive). */
const KNOWN = [
  'userName',
  'externalId',
  'displayName',
  'name',
  'formatted',
  'givenName',
  'familyName',
  'active',
  'preferredLanguage',
  'locale',
  'timezone',
  'emails',
  'phoneNumbers',
  'password',
  'members',
  'value',
  'type',
  'primary',
  'display',
];
const BOOLEANS = new Set(['active', 'primary']);
const MULTI_VALUED = new Set(['emails', 'phoneNumbers', 'members']);

const isObject = (value: unknown): value is Resource =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const canonical = (name: string): string =>
  KNOWN.find((known) => known.toLowerCase() === name.toLowerCase()) ?? name;

/** Entra has sent booleans as "True" and "False". */
function coerced(name: string, value: unknown): unknown {
  if (BOOLEANS.has(name) && typeof value === 'string' && /^(true|false)$/i.test(value))
    return value.toLowerCase() === 'true';
  return value;
}

const invalidPath = (path: string, why: string): ScimError =>
  new ScimError(400, `the path ${JSON.stringify(path)} ${why}`, 'invalidPath');

interface Path {
  attribute: string;
  /** `[type eq "work"]`: the elements of a multi-valued attribute it selects. */
  filter?: { attribute: string; value: string | boolean };
  sub?: string;
}

const CORE_PREFIXES = [`${SCIM.user}:`, `${SCIM.group}:`];

function stringLiteral(literal: string, path: string): string {
  try {
    return JSON.parse(literal) as string;
  } catch {
    throw invalidPath(path, 'has a string that does not decode');
  }
}

/** `emails[type eq "work"].value`, `name.givenName`, `active`, or a core-URN-qualified name. */
function parsePath(text: string): Path {
  let path = text.trim();
  for (const prefix of CORE_PREFIXES) {
    if (path.toLowerCase().startsWith(prefix.toLowerCase())) path = path.slice(prefix.length);
  }
  // An extension's attribute (the enterprise User's manager, say) is kept whole: not stored here.
  if (path.toLowerCase().startsWith('urn:')) return { attribute: path };
  const match =
    /^([A-Za-z][\w-]*)(?:\[\s*([A-Za-z][\w-]*)\s+eq\s+("(?:[^"\\]|\\.)*"|true|false)\s*\])?(?:\.([A-Za-z][\w-]*))?$/i.exec(
      path,
    );
  if (match === null)
    throw invalidPath(text, 'is not an attribute, attribute.sub or attribute[sub eq "value"]');
  const [, attribute = '', filterName, literal, sub] = match;
  return {
    attribute: canonical(attribute),
    ...(filterName !== undefined &&
      literal !== undefined && {
        filter: {
          attribute: canonical(filterName),
          value: literal.startsWith('"') ? stringLiteral(literal, text) : literal.toLowerCase() === 'true',
        },
      }),
    ...(sub !== undefined && { sub: canonical(sub) }),
  };
}

const matches = (element: unknown, filter: NonNullable<Path['filter']>): boolean => {
  if (typeof element !== 'object' || element === null) return false;
  const actual = (element as Resource)[filter.attribute];
  return typeof actual === 'string' && typeof filter.value === 'string'
    ? actual.toLowerCase() === filter.value.toLowerCase()
    : actual === filter.value;
};

const asArray = (value: unknown): unknown[] =>
  Array.isArray(value) ? value : value === undefined ? [] : [value];

/** Adds values to a multi-valued attribute; one with the same value replaces the old one. */
function merged(existing: unknown, added: unknown): unknown[] {
  const result = asArray(existing).slice();
  for (const value of asArray(added)) {
    const key = typeof value === 'object' && value !== null ? (value as Resource).value : value;
    const index = result.findIndex(
      (element) =>
        (typeof element === 'object' && element !== null ? (element as Resource).value : element) === key,
    );
    if (index === -1) result.push(value);
    else result[index] = value;
  }
  return result;
}

/** A value with its attribute names in canonical spelling, arrays element by element. */
function normalized(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalized);
  return isObject(value) ? normalizedObject(value) : value;
}

function normalizedObject(value: Resource): Resource {
  const result: Resource = {};
  for (const [name, inner] of Object.entries(value))
    result[canonical(name)] = coerced(canonical(name), inner);
  return result;
}

function applyWithoutPath(resource: Resource, operation: Operation, op: string): void {
  const { value } = operation;
  if (op === 'remove') throw new ScimError(400, 'a remove needs a path', 'noTarget');
  if (!isObject(value))
    throw new ScimError(400, `an ${op} without a path needs an object of attributes`, 'invalidValue');
  for (const [name, inner] of Object.entries(value)) {
    // Okta and Entra also write "name.givenName" or a core-URN-qualified name as a key.
    applyOne(resource, { op, path: name, value: inner }, op);
  }
}

function applyOne(resource: Resource, operation: Operation, op: string): void {
  if (operation.path === undefined || operation.path.trim() === '') {
    applyWithoutPath(resource, operation, op);
    return;
  }
  const path = parsePath(operation.path);
  const { attribute, filter, sub } = path;
  const value = coerced(sub ?? attribute, operation.value);
  if (op !== 'remove' && operation.value === undefined)
    throw new ScimError(400, `the ${op} of ${operation.path} needs a value`, 'invalidValue');

  if (filter === undefined && sub === undefined) {
    if (op === 'remove' && MULTI_VALUED.has(attribute) && Array.isArray(value)) {
      // Entra removes members by value: { "op": "Remove", "path": "members", "value": [{ "value": "…" }] }
      const gone = new Set((value as unknown[]).map((entry) => (isObject(entry) ? entry.value : entry)));
      resource[attribute] = asArray(resource[attribute]).filter(
        (element) => !gone.has(isObject(element) ? element.value : element),
      );
    } else if (op === 'remove') delete resource[attribute];
    else if (op === 'add' && MULTI_VALUED.has(attribute))
      resource[attribute] = merged(resource[attribute], normalized(value));
    else if (op === 'add' && isObject(value) && isObject(resource[attribute]))
      resource[attribute] = { ...resource[attribute], ...normalizedObject(value) };
    else resource[attribute] = normalized(value);
    return;
  }
  if (filter === undefined && sub !== undefined) {
    // name.givenName: a sub-attribute of a complex attribute.
    const complex = { ...(resource[attribute] as Resource | undefined) };
    if (op === 'remove') delete complex[sub];
    else complex[sub] = value;
    resource[attribute] = complex;
    return;
  }
  // emails[type eq "work"] or emails[type eq "work"].value
  const elements = asArray(resource[attribute]).slice();
  const selected = filter === undefined ? [] : elements.filter((element) => matches(element, filter));
  if (op === 'remove') {
    resource[attribute] =
      sub === undefined || sub === 'value'
        ? elements.filter((element) => !selected.includes(element))
        : elements.map((element) => {
            if (!selected.includes(element)) return element;
            const { [sub]: _removed, ...rest } = element as Resource;
            return rest;
          });
    return;
  }
  if (selected.length === 0) {
    // Entra adds a typed value that is not there yet with this form.
    if (filter === undefined) throw invalidPath(operation.path, 'selects nothing');
    const added: Resource =
      sub === undefined
        ? { ...(isObject(value) ? normalizedObject(value) : {}), [filter.attribute]: filter.value }
        : { [filter.attribute]: filter.value, [sub]: value };
    resource[attribute] = [...elements, added];
    return;
  }
  resource[attribute] = elements.map((element) => {
    if (!selected.includes(element)) return element;
    return sub === undefined
      ? { ...(element as Resource), ...(isObject(value) ? normalizedObject(value) : {}) }
      : { ...(element as Resource), [sub]: value };
  });
}

/**
 * Applies a PATCH's operations (RFC 7644 section 3.5.2) to a copy of the resource, in order; the
 * result is then checked and stored as a replacement would be. Takes Entra's and Okta's forms:
 * capitalised operations, "True"/"False", a path with a value filter, and no path with an object.
 */
export function applyPatch(resource: Resource, patch: ScimPatch): Resource {
  if (!patch.schemas.includes(SCIM.patchOp))
    throw new ScimError(400, `a PATCH names the schema ${SCIM.patchOp}`, 'invalidSyntax');
  const result = structuredClone(resource);
  for (const operation of patch.Operations) {
    const op = operation.op.toLowerCase();
    if (op !== 'add' && op !== 'remove' && op !== 'replace')
      throw new ScimError(
        400,
        `the operation "${operation.op}" is none of add, remove, replace`,
        'invalidSyntax',
      );
    applyOne(result, operation, op);
  }
  return result;
}
