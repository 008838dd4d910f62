import { SCIM } from './scim-schemas.js';

/**
 * The documents a client reads to learn what this server offers (RFC 7643 sections 5 to 7):
 * what it supports, its resource types and the attributes it keeps.
 */
export function serviceProviderConfig(base: string): Record<string, unknown> {
  return {
    schemas: [SCIM.serviceProviderConfig],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_PAGE },
    changePassword: { supported: true },
    sort: { supported: true },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'Service key',
        description:
          'A service key with the scope scim (dea service-key create <name> --scope scim), as a bearer token',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

/** The most resources one page of a list carries (`count` above it is lowered to it). */
export const MAX_PAGE = 200;

export function resourceTypes(base: string): Record<string, unknown>[] {
  return [
    {
      schemas: [SCIM.resourceType],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'A user who signs in and gets emergency codes',
      schema: SCIM.user,
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
    },
    {
      schemas: [SCIM.resourceType],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description: 'A group of users; its policy decides their codes',
      schema: SCIM.group,
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/Group` },
    },
  ];
}

const attribute = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  type: 'string',
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

const typedValues = (name: string, types: string[], description: string) =>
  attribute(name, {
    type: 'complex',
    multiValued: true,
    description,
    subAttributes: [
      attribute('value'),
      attribute('type', { canonicalValues: types }),
      attribute('primary', { type: 'boolean' }),
    ],
  });

export function schemas(base: string): Record<string, unknown>[] {
  return [
    {
      schemas: [SCIM.schema],
      id: SCIM.user,
      name: 'User',
      description: 'User Account',
      attributes: [
        attribute('userName', {
          required: true,
          uniqueness: 'server',
          description: 'The name the user signs in with',
        }),
        attribute('displayName', {
          description:
            'Kept as given; the full name is it, else name.formatted, else givenName familyName, else userName',
        }),
        attribute('name', {
          type: 'complex',
          subAttributes: [
            attribute('formatted', { description: 'Kept as given; none is made of the other parts' }),
            attribute('givenName'),
            attribute('familyName'),
          ],
        }),
        attribute('active', {
          type: 'boolean',
          description: 'false disables the user and ends their sessions',
        }),
        attribute('preferredLanguage', {
          description:
            "The language of the page and messages, such as de or pt-BR; unassigned: the page's language rule (the browser's language, else English)",
        }),
        attribute('timezone', { description: 'An IANA time zone for the times in messages' }),
        typedValues('emails', ['work', 'home'], 'work: the email channel; home: personalEmail'),
        typedValues(
          'phoneNumbers',
          ['mobile', 'work', 'home', 'other'],
          'mobile: mobile; work: telephone; home: personalTelephone; other: personalMobile',
        ),
        attribute('password', {
          mutability: 'writeOnly',
          returned: 'never',
          description: 'A password for the page',
        }),
        attribute('groups', {
          type: 'complex',
          multiValued: true,
          mutability: 'readOnly',
          description: "The groups SCIM owns that the user is in (an operator's groups are not listed)",
          subAttributes: [
            attribute('value', { mutability: 'readOnly', description: 'The id of the group' }),
            attribute('$ref', {
              type: 'reference',
              referenceTypes: ['Group'],
              mutability: 'readOnly',
              description: 'The URI of the group',
            }),
            attribute('display', { mutability: 'readOnly' }),
            attribute('type', {
              canonicalValues: ['direct', 'indirect'],
              mutability: 'readOnly',
              description: 'direct (groups are not members of groups here)',
            }),
          ],
        }),
      ],
      meta: { resourceType: 'Schema', location: `${base}/Schemas/${SCIM.user}` },
    },
    {
      schemas: [SCIM.schema],
      id: SCIM.group,
      name: 'Group',
      description: 'Group',
      attributes: [
        attribute('displayName', { required: true, uniqueness: 'server' }),
        attribute('members', {
          type: 'complex',
          multiValued: true,
          subAttributes: [
            attribute('value', { mutability: 'immutable', description: 'The id of the member' }),
            attribute('$ref', {
              type: 'reference',
              referenceTypes: ['User', 'Group'],
              mutability: 'immutable',
              description: 'The URI of the member',
            }),
            attribute('display', { mutability: 'readOnly' }),
            attribute('type', {
              canonicalValues: ['User', 'Group'],
              mutability: 'immutable',
              description: 'User (groups are not members here)',
            }),
          ],
        }),
      ],
      meta: { resourceType: 'Schema', location: `${base}/Schemas/${SCIM.group}` },
    },
  ];
}
