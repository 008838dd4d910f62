import type { Resource } from './scim-users.js';

/**
 * Which attributes an answer carries (RFC 7644 section 3.4.2.5): `attributes` names the only
 * ones wanted, `excludedAttributes` ones left out; each a name (`userName`), a sub-attribute
 * (`name.givenName`, `emails.value`) or either qualified by its schema's URN, all
 * case-insensitive. `id` and `schemas` are always returned.
 */
export interface Projection {
  attributes?: string | readonly string[] | undefined;
  excludedAttributes?: string | readonly string[] | undefined;
}

const ALWAYS = new Set(['id', 'schemas']);

/** A query's comma-separated list (GET), or a search request's array (POST /.search). */
export function namesOf(list: string | readonly string[] | undefined): string[] | undefined {
  if (list === undefined) return undefined;
  const names = (typeof list === 'string' ? list.split(',') : list).map((name) => name.trim());
  return names.filter((name) => name !== '');
}

/** `urn:…:User:name.givenName` as ['name', 'givenName'], the core schema's URN left out. */
function pathOf(name: string, schemaUrn: string): string[] {
  const lower = name.toLowerCase();
  const prefix = `${schemaUrn.toLowerCase()}:`;
  return (lower.startsWith(prefix) ? lower.slice(prefix.length) : lower).split('.');
}

const keyOf = (object: Resource, name: string): string | undefined =>
  Object.keys(object).find((key) => key.toLowerCase() === name);

const isObject = (value: unknown): value is Resource =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether the answer carries this top-level attribute (read before it is made, when costly). */
export function wants(projection: Projection, name: string, schemaUrn: string): boolean {
  const lower = name.toLowerCase();
  const attributes = namesOf(projection.attributes);
  if (attributes !== undefined && attributes.length > 0)
    return attributes.some((each) => pathOf(each, schemaUrn)[0] === lower);
  return !(namesOf(projection.excludedAttributes) ?? []).some((each) => {
    const path = pathOf(each, schemaUrn);
    return path.length === 1 && path[0] === lower;
  });
}

function pick(value: unknown, sub: string): unknown {
  if (Array.isArray(value))
    return value.map((element) => pick(element, sub)).filter((each) => each !== undefined);
  if (!isObject(value)) return undefined;
  const key = keyOf(value, sub);
  return key === undefined ? undefined : { [key]: value[key] };
}

function merge(existing: unknown, added: unknown): unknown {
  if (Array.isArray(existing) && Array.isArray(added))
    return existing.map((element, index) => merge(element, added[index]));
  if (isObject(existing) && isObject(added)) return { ...existing, ...added };
  return added ?? existing;
}

function without(value: unknown, sub: string): unknown {
  if (Array.isArray(value)) return value.map((element) => without(element, sub));
  if (!isObject(value)) return value;
  const key = keyOf(value, sub);
  if (key === undefined) return value;
  const { [key]: _gone, ...rest } = value;
  return rest;
}

/** The resource with only the attributes the projection asks for. */
export function projected(resource: Resource, projection: Projection, schemaUrn: string): Resource {
  const attributes = namesOf(projection.attributes);
  if (attributes !== undefined && attributes.length > 0) {
    const result: Resource = {};
    for (const key of Object.keys(resource)) if (ALWAYS.has(key)) result[key] = resource[key];
    for (const name of attributes) {
      const [top = '', sub] = pathOf(name, schemaUrn);
      const key = keyOf(resource, top);
      if (key === undefined) continue;
      const value = sub === undefined ? resource[key] : pick(resource[key], sub);
      if (value !== undefined) result[key] = sub === undefined ? value : merge(result[key], value);
    }
    return result;
  }
  const excluded = namesOf(projection.excludedAttributes) ?? [];
  let result: Resource = { ...resource };
  for (const name of excluded) {
    const [top = '', sub] = pathOf(name, schemaUrn);
    const key = keyOf(result, top);
    if (key === undefined || ALWAYS.has(key)) continue;
    if (sub === undefined) {
      const { [key]: _gone, ...rest } = result;
      result = rest;
    } else result[key] = without(result[key], sub);
  }
  return result;
}
