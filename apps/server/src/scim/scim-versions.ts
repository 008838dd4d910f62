import { createHash } from 'node:crypto';
import { ScimError } from './scim-error.js';
import type { Resource } from './scim-users.js';

/**
 * A resource's version (RFC 7644 section 3.14, meta.version and the ETag header): a weak entity
 * tag of what the resource shows (its meta and references aside) and of `more` (a group's
 * members, say), so that any change a client can see gives a new version.
 */
export function versionOf(resource: Resource, more: readonly string[] = []): string {
  const { meta: _meta, ...shown } = resource;
  // A reference ($ref) is an absolute URL of the base the client reached: the same resource has
  // one version whatever host, scheme or instance answers.
  const withoutReferences = (key: string, value: unknown) => (key === '$ref' ? undefined : value);
  const hash = createHash('sha256')
    .update(JSON.stringify(shown, withoutReferences))
    .update(JSON.stringify(more));
  return `W/"${hash.digest('base64url').slice(0, 27)}"`;
}

/** The opaque tag of an entity tag, W/ left out: SCIM clients send back the weak tags they were given. */
const opaque = (tag: string): string => tag.trim().replace(/^W\//, '');

/** Whether an If-Match or If-None-Match header names this version (`*`: any). */
export function namesVersion(header: string, version: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => opaque(tag) === opaque(version));
}

/** A PUT, PATCH or DELETE whose If-Match names another version: 412, nothing changed. */
export function requireVersion(ifMatch: string | undefined, version: string): void {
  if (ifMatch === undefined || namesVersion(ifMatch, version)) return;
  throw new ScimError(
    412,
    `the resource has changed: it is at version ${version}, not ${ifMatch.trim()}; read it again and retry`,
  );
}
