import { PASSWORD_MAX_LENGTH } from '@dea/contract';
import Type, { type Static } from 'typebox';

/** The URNs of RFC 7643 and RFC 7644 this server speaks. */
export const SCIM = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  enterpriseUser: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
  listResponse: 'urn:ietf:params:scim:api:messages:2.0:ListResponse',
  patchOp: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  searchRequest: 'urn:ietf:params:scim:api:messages:2.0:SearchRequest',
  error: 'urn:ietf:params:scim:api:messages:2.0:Error',
  serviceProviderConfig: 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig',
  resourceType: 'urn:ietf:params:scim:schemas:core:2.0:ResourceType',
  schema: 'urn:ietf:params:scim:schemas:core:2.0:Schema',
} as const;

export const SCIM_MEDIA_TYPE = 'application/scim+json';

const Text = Type.String({ maxLength: 1024 });

/** One value of a multi-valued attribute (emails, phoneNumbers, members); other sub-attributes are kept out. */
const MultiValue = Type.Object({
  value: Type.Optional(Text),
  type: Type.Optional(Text),
  primary: Type.Optional(Type.Boolean()),
  display: Type.Optional(Text),
});

/**
 * A User as a client sends it (POST, PUT, and the result of a PATCH). Attributes this server does
 * not keep (title, addresses, the enterprise extension, ...) are accepted and not stored, as
 * RFC 7644 section 3.3 allows; those it keeps must have their type.
 */
export const ScimUserInput = Type.Object({
  schemas: Type.Array(Text, { minItems: 1 }),
  userName: Type.String({ minLength: 1, maxLength: 200 }),
  externalId: Type.Optional(Type.Union([Text, Type.Null()])),
  displayName: Type.Optional(Type.Union([Text, Type.Null()])),
  name: Type.Optional(
    Type.Object({
      formatted: Type.Optional(Text),
      givenName: Type.Optional(Text),
      familyName: Type.Optional(Text),
    }),
  ),
  active: Type.Optional(Type.Boolean()),
  preferredLanguage: Type.Optional(Type.Union([Text, Type.Null()])),
  locale: Type.Optional(Type.Union([Text, Type.Null()])),
  timezone: Type.Optional(Type.Union([Text, Type.Null()])),
  emails: Type.Optional(Type.Array(MultiValue, { maxItems: 20 })),
  phoneNumbers: Type.Optional(Type.Array(MultiValue, { maxItems: 20 })),
  password: Type.Optional(Type.String({ maxLength: PASSWORD_MAX_LENGTH })),
});
export type ScimUserInput = Static<typeof ScimUserInput>;

export const ScimGroupInput = Type.Object({
  schemas: Type.Array(Text, { minItems: 1 }),
  displayName: Type.String({ minLength: 1, maxLength: 200 }),
  externalId: Type.Optional(Type.Union([Text, Type.Null()])),
  members: Type.Optional(Type.Array(MultiValue, { maxItems: 10_000 })),
});
export type ScimGroupInput = Static<typeof ScimGroupInput>;

/** RFC 7644 section 3.5.2: the operations of a PATCH, in order. Entra writes "Add", "Replace", "Remove". */
export const ScimPatch = Type.Object({
  schemas: Type.Array(Text, { minItems: 1 }),
  Operations: Type.Array(
    Type.Object({
      op: Type.String({ maxLength: 16 }),
      path: Type.Optional(Type.String({ maxLength: 1024 })),
      value: Type.Optional(Type.Unknown()),
    }),
    { minItems: 1, maxItems: 1000 },
  ),
});
export type ScimPatch = Static<typeof ScimPatch>;

export const ScimListQuery = Type.Object({
  filter: Type.Optional(Type.String({ maxLength: 1024 })),
  startIndex: Type.Optional(Type.String({ pattern: '^-?\\d{1,9}$' })),
  count: Type.Optional(Type.String({ pattern: '^-?\\d{1,9}$' })),
  attributes: Type.Optional(Type.String({ maxLength: 1024 })),
  excludedAttributes: Type.Optional(Type.String({ maxLength: 1024 })),
  sortBy: Type.Optional(Type.String({ maxLength: 200 })),
  sortOrder: Type.Optional(Type.String({ maxLength: 20 })),
});
export type ScimListQuery = Static<typeof ScimListQuery>;

/** RFC 7644 section 3.4.3: a query sent as the body of POST /Users/.search or /Groups/.search. */
export const ScimSearch = Type.Object({
  schemas: Type.Array(Text, { minItems: 1 }),
  attributes: Type.Optional(Type.Array(Text, { maxItems: 100 })),
  excludedAttributes: Type.Optional(Type.Array(Text, { maxItems: 100 })),
  filter: Type.Optional(Type.String({ maxLength: 1024 })),
  startIndex: Type.Optional(Type.Integer({ minimum: -999_999_999, maximum: 999_999_999 })),
  count: Type.Optional(Type.Integer({ minimum: -999_999_999, maximum: 999_999_999 })),
  sortBy: Type.Optional(Type.String({ maxLength: 200 })),
  sortOrder: Type.Optional(Type.String({ maxLength: 20 })),
});
export type ScimSearch = Static<typeof ScimSearch>;
