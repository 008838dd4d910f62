import { createServiceKey } from '../domain/codes/service-keys.js';
import type { TestApp } from './test-app.js';

/** The schemas of SCIM's resources and messages (RFC 7643, RFC 7644). */
export const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const SEARCH = 'urn:ietf:params:scim:api:messages:2.0:SearchRequest';
export const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

/** A SCIM answer: JSON read field by field in the assertions. */
// oxlint-disable-next-line typescript/no-explicit-any
export type Json = any;

export interface Scim {
  base: string;
  /** A SCIM call over real HTTP with the service key, as the identity provider makes it. */
  call: (method: string, path: string, body?: unknown, key?: string | null) => Promise<ScimAnswer>;
  /** Creates a user (or a group, at `/Groups`) and answers its id. */
  create: (body: unknown, path?: '/Users' | '/Groups') => Promise<string>;
  /** A PATCH of these operations. */
  patch: (path: string, ...operations: unknown[]) => ReturnType<Scim['call']>;
  /** A GET of this path with the filter, encoded. */
  filter: (path: '/Users' | '/Groups', filter: string) => ReturnType<Scim['call']>;
}

/** How a client calls: its service key's name (entra) and scopes (scim), its bodies' content type. */
export interface ScimClientOptions {
  name?: string;
  scopes?: string[];
  /** The content type of a body (application/scim+json; Okta sends application/json). */
  contentType?: string;
  /** An Accept header, when the client sends one. */
  accept?: string;
}

/** An answer of SCIM: its status, its JSON read field by field, its headers. */
export interface ScimAnswer {
  status: number;
  body: Json;
  headers: Headers;
}

/** One SCIM request over real HTTP: the key as a bearer token (none if null), a body as JSON. */
async function scimRequest(
  url: string,
  method: string,
  key: string | null,
  body: unknown,
  headers: Record<string, string>,
): Promise<ScimAnswer> {
  const response = await fetch(url, {
    method,
    headers: { ...(key !== null && { authorization: `Bearer ${key}` }), ...headers },
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  const answer: unknown = text === '' ? undefined : JSON.parse(text);
  return { status: response.status, body: answer, headers: response.headers };
}

/**
 * SCIM with this service key on any of the servers at these bases (instances of one store), the
 * call's index choosing the server; headers besides (If-Match, If-None-Match).
 */
export function scimOver(bases: readonly string[], key: string) {
  return (
    index: number,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ScimAnswer> =>
    scimRequest(`${bases[index % bases.length] ?? ''}/scim/v2${path}`, method, key, body, {
      ...(body !== undefined && { 'content-type': 'application/scim+json' }),
      ...headers,
    });
}

/** The app listening on a real port, and a client calling it with a service key of its own. */
export async function scimClient(
  t: TestApp,
  {
    name = 'entra',
    scopes = ['scim'],
    contentType = 'application/scim+json',
    accept,
  }: ScimClientOptions = {},
): Promise<Scim> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/scim/v2`;
  const { key } = await createServiceKey(
    t.services.store,
    t.services.keys.serviceKey,
    name,
    scopes,
    t.clock.now(),
  );
  const call: Scim['call'] = (method, path, body, presented = key) =>
    scimRequest(`${base}${path}`, method, presented, body, {
      ...(accept !== undefined && { accept }),
      ...(body !== undefined && { 'content-type': contentType }),
    });
  return {
    base,
    call,
    create: async (body, path = '/Users') => ((await call('POST', path, body)).body as { id: string }).id,
    patch: (path, ...operations) => call('PATCH', path, { schemas: [PATCH], Operations: operations }),
    filter: (path, filter) => call('GET', `${path}?filter=${encodeURIComponent(filter)}`),
  };
}

/** A session of the user, made in the store, whose end a test looks for. */
export async function sessionOf(t: TestApp, userId: string, idHash: string): Promise<void> {
  await t.services.store.sessions.create({
    idHash,
    userId,
    createdAt: t.clock.now(),
    lastSeenAt: t.clock.now(),
  });
}

/** The page's sign-in with this user name and password; its answer's JSON. */
export async function pageSignIn(t: TestApp, username: string, password: string): Promise<Json> {
  const answer = await t.app.inject({
    method: 'POST',
    url: '/login/api/session',
    payload: { username, password },
  });
  return answer.json();
}

// Microsoft Entra ID's requests, as its SCIM provisioning documentation shows them.
export const entraUser = {
  schemas: [USER, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
  externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
  userName: 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1',
  active: true,
  emails: [
    { primary: true, type: 'work', value: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com' },
  ],
  phoneNumbers: [
    { type: 'mobile', value: '+1 425 555 0100' },
    { type: 'work', value: '+1 425 555 0199' },
    { type: 'fax', value: '+1 425 555 0111' },
  ],
  meta: { resourceType: 'User' },
  name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
  roles: [],
  'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'Sales' },
};

// Okta's requests, as its SCIM 2.0 documentation shows them.
export const oktaUser = {
  schemas: [USER],
  userName: 'test.user@okta.local',
  name: { givenName: 'Test', familyName: 'User' },
  emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
  displayName: 'Test User',
  locale: 'en-US',
  externalId: '00ujl29u0le5T6Aj10h7',
  groups: [],
  password: '1mz050nq',
  active: true,
};
