import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { authenticateServiceKey } from '../domain/codes/service-keys.js';
import { bearerToken } from '../http/bearer.js';
import { isStoreUnavailable } from '../http/envelope.js';
import { codeOf, unavailableReason } from '../store/store-error.js';
import { MAX_PAGE, resourceTypes, schemas, serviceProviderConfig } from '../scim/scim-discovery.js';
import { notFound, ScimError } from '../scim/scim-error.js';
import { type Projection, projected, wants } from '../scim/scim-attributes.js';
import { namesVersion } from '../scim/scim-versions.js';
import { SCIM, SCIM_MEDIA_TYPE, ScimListQuery, ScimPatch, ScimSearch } from '../scim/scim-schemas.js';
import type { ScimGroups } from '../scim/scim-groups.js';
import type { Resource, ScimUsers } from '../scim/scim-users.js';
import type { Group, User } from '../store/store.js';

/** Where SCIM is served (RFC 7644 section 3.13: the version in the path). */
export const SCIM_BASE_PATH = '/scim/v2';

/** The service key's name, as the actor of every change it makes. */
const actors = new WeakMap<FastifyRequest, string>();
const actorOf = (request: FastifyRequest): string => actors.get(request) ?? 'scim';

/** The absolute URL of SCIM's base, as the client reached it. */
const baseOf = (request: FastifyRequest): string => `${request.protocol}://${request.host}${SCIM_BASE_PATH}`;

/** RFC 7644 section 3.4.2.4: 1-based startIndex, count capped at MAX_PAGE. */
function page<T>(
  items: readonly T[],
  query: { startIndex?: string | number | undefined; count?: string | number | undefined },
): { startIndex: number; slice: readonly T[] } {
  const startIndex = Math.max(1, Number(query.startIndex ?? 1));
  const count = Math.min(MAX_PAGE, Math.max(0, Number(query.count ?? 100)));
  return { startIndex, slice: items.slice(startIndex - 1, startIndex - 1 + count) };
}

function listResponse(total: number, startIndex: number, resources: Resource[]): Resource {
  return {
    schemas: [SCIM.listResponse],
    totalResults: total,
    startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}

/** A list's query: from the URL (GET) or a search request's body (POST /.search). */
type ListQuery = Omit<ScimListQuery, 'attributes' | 'excludedAttributes'> & Projection;

/** A search request's body as the query of a GET: the same list, filter and page. */
function searchQuery(search: ScimSearch): ListQuery {
  if (!search.schemas.includes(SCIM.searchRequest))
    throw new ScimError(400, `a search request names the schema ${SCIM.searchRequest}`, 'invalidSyntax');
  return {
    ...(search.filter !== undefined && { filter: search.filter }),
    ...(search.startIndex !== undefined && { startIndex: String(search.startIndex) }),
    ...(search.count !== undefined && { count: String(search.count) }),
    ...(search.sortBy !== undefined && { sortBy: search.sortBy }),
    ...(search.sortOrder !== undefined && { sortOrder: search.sortOrder }),
    ...(search.attributes !== undefined && { attributes: search.attributes }),
    ...(search.excludedAttributes !== undefined && { excludedAttributes: search.excludedAttributes }),
  };
}

/**
 * The users and the groups a filter of the server root selects: a type whose attributes the
 * filter does not name (invalidFilter for it) has none; when neither takes it, the refusal stands.
 */
async function selectedByEither<U, G>(
  ofUsers: () => Promise<U[]>,
  ofGroups: () => Promise<G[]>,
): Promise<[U[], G[]]> {
  const orNone = async <T>(list: () => Promise<T[]>): Promise<T[] | ScimError> => {
    try {
      return await list();
    } catch (error) {
      if (error instanceof ScimError && error.scimType === 'invalidFilter') return error;
      throw error;
    }
  };
  const found = await Promise.all([orNone(ofUsers), orNone(ofGroups)]);
  const [foundUsers, foundGroups] = found;
  if (foundUsers instanceof ScimError && foundGroups instanceof ScimError) throw foundUsers;
  return [
    foundUsers instanceof ScimError ? [] : foundUsers,
    foundGroups instanceof ScimError ? [] : foundGroups,
  ];
}

async function sendError(request: FastifyRequest, reply: FastifyReply, error: ScimError): Promise<void> {
  request.log.info(
    { status: error.status, scimType: error.scimType, detail: error.message },
    'SCIM request refused',
  );
  if (error.status === 401) void reply.header('www-authenticate', 'Bearer realm="scim"');
  if (error.status === 503) void reply.header('retry-after', '5');
  await reply.code(error.status).send(error.body());
}

function scimErrorOf(error: FastifyError | ScimError): ScimError | undefined {
  if (error instanceof ScimError) return error;
  if (error.validation) {
    const [first] = error.validation;
    return new ScimError(
      400,
      `${error.validationContext ?? 'body'}${first?.instancePath ?? ''} ${first?.message ?? 'is not valid'}`,
      'invalidSyntax',
    );
  }
  if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY')
    return new ScimError(400, 'the body is not valid JSON', 'invalidSyntax');
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500)
    return new ScimError(error.statusCode, error.message, 'invalidSyntax');
  return undefined;
}

/**
 * SCIM 2.0 (RFC 7643, RFC 7644) for identity providers such as Entra ID and Okta: Users and
 * Groups, and the documents that describe them, authorized by a service key with the scope
 * `scim`; every answer and error in SCIM's own format (application/scim+json).
 */
export const scimRoutes: FastifyPluginAsync = async (app) => {
  const { services } = app;
  const { users, groups } = services.scim;

  // RFC 7644 section 8.1: clients may send the SCIM type on every request, a DELETE without a
  // body too; an empty body is no body (a POST or PUT without one is refused as no resource).
  const json = app.getDefaultJsonParser('error', 'error');
  const jsonOrNothing = (
    request: FastifyRequest,
    body: string | Buffer,
    done: (error: Error | null, body?: unknown) => void,
  ) => {
    const text = body.toString();
    if (text.length === 0) done(null, undefined);
    else void json(request, text, done);
  };
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(['application/json', SCIM_MEDIA_TYPE], { parseAs: 'string' }, jsonOrNothing);
  app.setErrorHandler(async (error: FastifyError | ScimError, request, reply) => {
    const known = scimErrorOf(error);
    if (known !== undefined) return sendError(request, reply, known);
    if (isStoreUnavailable(error)) {
      request.log.warn(
        { errorCode: codeOf(error), cause: error.message },
        unavailableReason(error, app.services.config.dataDir),
      );
      return sendError(request, reply, new ScimError(503, 'the store is unavailable; try again shortly'));
    }
    request.log.error({ err: error }, 'SCIM request failed');
    return sendError(request, reply, new ScimError(500, 'internal error; the details are in the server log'));
  });
  app.setNotFoundHandler(async (request, reply) =>
    sendError(request, reply, new ScimError(404, `no such endpoint: ${request.method} ${request.url}`)),
  );
  app.addHook('onRequest', async (request) => {
    const serviceKey = await authenticateServiceKey(
      services.store,
      services.keys,
      bearerToken(request),
      'scim',
      services.now(),
    );
    if (serviceKey === undefined)
      throw new ScimError(401, 'a service key with the scope scim is needed as the bearer token');
    actors.set(request, `scim:${serviceKey.name}`);
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    void reply
      .header('content-type', `${SCIM_MEDIA_TYPE}; charset=utf-8`)
      .header('cache-control', 'no-store');
    return payload;
  });

  const hidden = { hide: true };
  const userLocation = (request: FastifyRequest, id: string) => `${baseOf(request)}/Users/${id}`;
  const groupLocation = (request: FastifyRequest, id: string) => `${baseOf(request)}/Groups/${id}`;
  type WithId = { Params: { id: string } };

  app.get('/ServiceProviderConfig', { schema: hidden }, async (request) =>
    serviceProviderConfig(baseOf(request)),
  );
  /** A list of documents and each one by its id: ResourceTypes, Schemas. */
  const documents = (path: string, kind: string, all: (base: string) => Resource[]) => {
    app.get(path, { schema: hidden }, async (request) => {
      const found = all(baseOf(request));
      return listResponse(found.length, 1, found);
    });
    app.get<WithId>(`${path}/:id`, { schema: hidden }, async (request) => {
      const found = all(baseOf(request)).find((document) => document.id === request.params.id);
      if (found === undefined) throw notFound(`${kind} ${request.params.id}`);
      return found;
    });
  };
  documents('/ResourceTypes', 'ResourceType', resourceTypes);
  documents('/Schemas', 'Schema', schemas);

  // Users and Groups. Each answer of one resource carries its version as the ETag; a GET whose
  // If-None-Match names it is 304, a PUT, PATCH or DELETE whose If-Match names another is 412
  // (RFC 7644 section 3.14).
  type Listed = { Querystring: ScimListQuery };
  type One = WithId & Listed;
  const listed = { schema: { ...hidden, querystring: ScimListQuery } };
  const versionOfResource = (resource: Resource): string =>
    String((resource.meta as { version: string }).version);
  /** The resource answered, with only the attributes asked for and its version as the ETag. */
  const answer = (request: FastifyRequest<Listed>, reply: FastifyReply, resource: Resource, urn: string) => {
    void reply.header('etag', versionOfResource(resource));
    return projected(resource, request.query, urn);
  };
  const ifMatch = (request: FastifyRequest): string | undefined => request.headers['if-match'];
  const ifNoneMatch = (request: FastifyRequest): string | undefined => request.headers['if-none-match'];

  const usersPage = async (request: FastifyRequest, query: ListQuery) => {
    const found = await users.list(query);
    const { startIndex, slice } = page(found, query);
    const resources = await Promise.all(
      slice.map(async (user) =>
        projected(await users.resource(user, userLocation(request, user.id)), query, SCIM.user),
      ),
    );
    return listResponse(found.length, startIndex, resources);
  };
  const userResource = async (request: FastifyRequest, user: User) =>
    users.resource(user, userLocation(request, user.id));
  /**
   * A change of the user in one transaction, its version checked there against If-Match when the
   * request has one (scim-users.ts `change`): of writers holding one version, one wins.
   */
  const userChange = <T>(request: FastifyRequest<WithId>, work: (scoped: ScimUsers) => Promise<T>) =>
    users.change(request.params.id, ifMatch(request), userLocation(request, request.params.id), work);
  app.get<Listed>('/Users', listed, async (request) => usersPage(request, request.query));
  app.post<{ Body: ScimSearch }>(
    '/Users/.search',
    { schema: { ...hidden, body: ScimSearch } },
    async (request, reply) => {
      void reply.code(200);
      return usersPage(request, searchQuery(request.body));
    },
  );
  app.get<One>('/Users/:id', listed, async (request, reply) => {
    const resource = await userResource(request, await users.get(request.params.id));
    const cached = ifNoneMatch(request);
    if (cached !== undefined && namesVersion(cached, versionOfResource(resource)))
      return reply.code(304).header('etag', versionOfResource(resource)).send();
    return answer(request, reply, resource, SCIM.user);
  });
  app.post<Listed>('/Users', listed, async (request, reply) => {
    const user = await users.create(request.body, actorOf(request));
    void reply.code(201).header('location', userLocation(request, user.id));
    return answer(request, reply, await userResource(request, user), SCIM.user);
  });
  app.put<One>('/Users/:id', listed, async (request, reply) => {
    const password = await users.preparePassword(request.params.id, request.body);
    const resource = await userChange(request, async (scoped) => {
      const user = await scoped.replace(request.params.id, request.body, actorOf(request), false, password);
      return scoped.resource(user, userLocation(request, user.id));
    });
    return answer(request, reply, resource, SCIM.user);
  });
  app.patch<One & { Body: ScimPatch }>(
    '/Users/:id',
    { schema: { ...hidden, querystring: ScimListQuery, body: ScimPatch } },
    async (request, reply) => {
      const location = userLocation(request, request.params.id);
      const password = await users.preparePassword(request.params.id, request.body);
      const resource = await userChange(request, async (scoped) =>
        scoped.resource(
          await scoped.patch(request.params.id, request.body, actorOf(request), location, password),
          location,
        ),
      );
      return answer(request, reply, resource, SCIM.user);
    },
  );
  app.delete<WithId>('/Users/:id', { schema: hidden }, async (request, reply) => {
    await userChange(request, (scoped) => scoped.remove(request.params.id, actorOf(request)));
    return reply.code(204).send();
  });

  const groupsPage = async (request: FastifyRequest, query: ListQuery) => {
    const found = await groups.list(query);
    const { startIndex, slice } = page(found, query);
    const withMembers = wants(query, 'members', SCIM.group);
    const resources = await Promise.all(
      slice.map(async (group) =>
        projected(
          await groups.resource(group, groupLocation(request, group.id), withMembers),
          query,
          SCIM.group,
        ),
      ),
    );
    return listResponse(found.length, startIndex, resources);
  };
  const groupResource = async (request: FastifyRequest<Listed>, group: Group) =>
    groups.resource(group, groupLocation(request, group.id), wants(request.query, 'members', SCIM.group));
  /** A change of the group in one transaction, its version checked there (scim-groups.ts `change`). */
  const groupChange = <T>(request: FastifyRequest<One>, work: (scoped: ScimGroups) => Promise<T>) =>
    groups.change(request.params.id, ifMatch(request), groupLocation(request, request.params.id), work);
  const scopedGroupResource = (scoped: ScimGroups, request: FastifyRequest<One>, group: Group) =>
    scoped.resource(group, groupLocation(request, group.id), wants(request.query, 'members', SCIM.group));
  app.get<Listed>('/Groups', listed, async (request) => groupsPage(request, request.query));

  /**
   * RFC 7644 section 3.4.2.1 and 3.4.3: a query of the server root, Users then Groups, each
   * selected by the filter when it names attributes that type keeps (a filter neither keeps is
   * refused as invalidFilter); attributes and excludedAttributes apply to each by its schema.
   */
  const rootPage = async (request: FastifyRequest, query: ListQuery) => {
    if (query.sortBy !== undefined || query.sortOrder !== undefined)
      throw new ScimError(
        400,
        'sortBy is offered on /Users and /Groups, not across both at the root: search each',
        'invalidValue',
      );
    const [foundUsers, foundGroups] = await selectedByEither(
      () => users.list(query),
      () => groups.list(query),
    );
    const found = [...foundUsers.map((user) => ({ user })), ...foundGroups.map((group) => ({ group }))];
    const { startIndex, slice } = page(found, query);
    const withMembers = wants(query, 'members', SCIM.group);
    const resources = await Promise.all(
      slice.map(async (each) =>
        'user' in each
          ? projected(await users.resource(each.user, userLocation(request, each.user.id)), query, SCIM.user)
          : projected(
              await groups.resource(each.group, groupLocation(request, each.group.id), withMembers),
              query,
              SCIM.group,
            ),
      ),
    );
    return listResponse(found.length, startIndex, resources);
  };
  app.get<Listed>('/', listed, async (request) => rootPage(request, request.query));
  app.post<{ Body: ScimSearch }>(
    '/.search',
    { schema: { ...hidden, body: ScimSearch } },
    async (request, reply) => {
      void reply.code(200);
      return rootPage(request, searchQuery(request.body));
    },
  );
  app.post<{ Body: ScimSearch }>(
    '/Groups/.search',
    { schema: { ...hidden, body: ScimSearch } },
    async (request, reply) => {
      void reply.code(200);
      return groupsPage(request, searchQuery(request.body));
    },
  );
  app.get<One>('/Groups/:id', listed, async (request, reply) => {
    const resource = await groupResource(request, await groups.get(request.params.id));
    const cached = ifNoneMatch(request);
    if (cached !== undefined && namesVersion(cached, versionOfResource(resource)))
      return reply.code(304).header('etag', versionOfResource(resource)).send();
    return answer(request, reply, resource, SCIM.group);
  });
  app.post<Listed>('/Groups', listed, async (request, reply) => {
    const group = await groups.create(request.body, actorOf(request));
    void reply.code(201).header('location', groupLocation(request, group.id));
    return answer(request, reply, await groupResource(request, group), SCIM.group);
  });
  app.put<One>('/Groups/:id', listed, async (request, reply) => {
    const resource = await groupChange(request, async (scoped) =>
      scopedGroupResource(
        scoped,
        request,
        await scoped.replace(request.params.id, request.body, actorOf(request)),
      ),
    );
    return answer(request, reply, resource, SCIM.group);
  });
  app.patch<One & { Body: ScimPatch }>(
    '/Groups/:id',
    { schema: { ...hidden, querystring: ScimListQuery, body: ScimPatch } },
    async (request, reply) => {
      const location = groupLocation(request, request.params.id);
      const resource = await groupChange(request, async (scoped) =>
        scopedGroupResource(
          scoped,
          request,
          await scoped.patch(request.params.id, request.body, actorOf(request), location),
        ),
      );
      // RFC 7644 section 3.5.2: 204 when the client did not ask for attributes back.
      if (request.query.attributes === undefined && request.query.excludedAttributes === undefined)
        return reply.code(204).header('etag', versionOfResource(resource)).send();
      return answer(request, reply, resource, SCIM.group);
    },
  );
  // RFC 7644 section 3.11: a service provider without /Me answers 501; bulk (section 3.7) likewise.
  const notImplemented = (what: string) => async () => {
    throw new ScimError(501, `${what} is not offered here (ServiceProviderConfig says which features are)`);
  };
  app.all('/Me', { schema: hidden }, notImplemented('/Me'));
  app.all('/Me/*', { schema: hidden }, notImplemented('/Me'));
  app.all('/Bulk', { schema: hidden }, notImplemented('Bulk'));

  app.delete<One>('/Groups/:id', listed, async (request, reply) => {
    await groupChange(request, (scoped) => scoped.remove(request.params.id, actorOf(request)));
    return reply.code(204).send();
  });
};
