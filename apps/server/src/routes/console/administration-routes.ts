import {
  AdminGroupOwner,
  AdminLanguageAdded,
  CreatedId,
  AdminBranding,
  AdminBrandingReset,
  AdminBrandingSet,
  AdminGroupCreate,
  AdminGroupOwnerChange,
  AdminLanguageAdd,
  AdminLanguageParams,
  AdminLanguages,
  AdminGroupParams,
  AdminGroups,
  AdminPolicyChange,
  AdminPolicyResult,
  AdminServiceKey,
  AdminServiceKeyCreate,
  AdminServiceKeyCreated,
  AdminServiceKeyParams,
  AdminServiceKeys,
  AdminSettings,
  AdminTexts,
  AdminTextsSet,
  AdminTextsSetResult,
  BRANDING_BODY_LIMIT_BYTES,
  BrandingEntry,
  EmptyRequest,
  TEXTS_BODY_LIMIT_BYTES,
} from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { emptyBodyAsObject, ok } from '../../http/envelope.js';
import { guardedCaller } from '../../http/console-guard.js';
import { CONSOLE_ACCESS } from '../../domain/console/console-access.js';
import { documented } from '../../http/route-docs.js';

/** Groups and policies, branding, message texts, service keys and the effective settings, for administrators. */
export const administrationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { administration } = app.services;

  app.get(
    '/admin/groups',
    {
      config: { console: CONSOLE_ACCESS.administer },
      schema: documented({
        summary: 'The groups with their policies: stored, effective, and the defaults',
        security: 'console',
        result: AdminGroups,
      }),
    },
    async () => ok(await administration.groups()),
  );
  app.post(
    '/admin/groups',
    {
      config: { console: CONSOLE_ACCESS.administer },
      schema: {
        body: AdminGroupCreate,
        ...documented({
          summary: 'Add a group',
          security: 'console',
          result: CreatedId,
        }),
      },
    },
    async (request) =>
      ok(await administration.createGroup(guardedCaller(request), request.body.name, request.body.priority)),
  );
  app.post(
    '/admin/groups/:groupId/policy',
    {
      config: { console: CONSOLE_ACCESS.administer },
      schema: {
        params: AdminGroupParams,
        body: AdminPolicyChange,
        ...documented({
          summary: "Change options of the group's emergency or help-desk policy (each checked)",
          security: 'console',
          result: AdminPolicyResult,
        }),
      },
    },
    async (request) =>
      ok(await administration.setPolicy(guardedCaller(request), request.params.groupId, request.body)),
  );
  app.post(
    '/admin/groups/:groupId/owner',
    {
      config: { console: CONSOLE_ACCESS.administer },
      schema: {
        params: AdminGroupParams,
        body: AdminGroupOwnerChange,
        ...documented({
          summary: 'Hand the group to SCIM (it may then rename it and set its SCIM members) or take it back',
          security: 'console',
          result: AdminGroupOwner,
        }),
      },
    },
    async (request) =>
      ok(
        await administration.setGroupOwner(
          guardedCaller(request),
          request.params.groupId,
          request.body.owner,
        ),
      ),
  );
  app.get(
    '/admin/branding',
    {
      config: { console: CONSOLE_ACCESS.administer },
      schema: documented({
        summary: 'Every branding entry, the default where none is set',
        security: 'console',
        result: AdminBranding,
      }),
    },
    async () => ok(await administration.branding()),
  );
  app.post(
    '/admin/branding',
    {
      config: { console: CONSOLE_ACCESS.administer },
      bodyLimit: BRANDING_BODY_LIMIT_BYTES,
      schema: {
        body: AdminBrandingSet,
        ...documented({
          summary: 'Set a branding entry (checked for its type; the page shows it on its next load)',
          security: 'console',
          result: BrandingEntry,
        }),
      },
    },
    async (request) =>
      ok(await administration.setBranding(guardedCaller(request), request.body.name, request.body.value)),
  );
  app.post(
    '/admin/branding/reset',
    {
      config: { console: CONSOLE_ACCESS.administer },
      schema: {
        body: AdminBrandingReset,
        ...documented({
          summary: "Reset a branding entry to the product's default",
          security: 'console',
          result: BrandingEntry,
        }),
      },
    },
    async (request) => ok(await administration.resetBranding(guardedCaller(request), request.body.name)),
  );
  app.get(
    '/admin/languages',
    {
      config: { console: CONSOLE_ACCESS.administer },
      schema: documented({
        summary: 'The languages of the message catalogs, with how many texts each lacks',
        security: 'console',
        result: AdminLanguages,
      }),
    },
    async () => ok(await administration.languages()),
  );
  app.post(
    '/admin/languages',
    {
      config: { console: CONSOLE_ACCESS.administer },
      schema: {
        body: AdminLanguageAdd,
        ...documented({
          summary: 'Add a language, starting from the texts of another (English when not given)',
          security: 'console',
          result: AdminLanguageAdded,
        }),
      },
    },
    async (request) => ok(await administration.addLanguage(guardedCaller(request), request.body)),
  );
  app.get(
    '/admin/texts/:language',
    {
      config: { console: CONSOLE_ACCESS.administer },
      schema: {
        params: AdminLanguageParams,
        ...documented({
          summary: "A language's texts beside English (null where it has none)",
          security: 'console',
          result: AdminTexts,
        }),
      },
    },
    async (request) => ok(await administration.texts(guardedCaller(request), request.params.language)),
  );
  app.post(
    '/admin/texts/:language',
    {
      config: { console: CONSOLE_ACCESS.administer },
      bodyLimit: TEXTS_BODY_LIMIT_BYTES,
      schema: {
        params: AdminLanguageParams,
        body: AdminTextsSet,
        ...documented({
          summary: 'Set texts of a language (each a known key with the placeholders of English)',
          security: 'console',
          result: AdminTextsSetResult,
        }),
      },
    },
    async (request) =>
      ok(await administration.setTexts(guardedCaller(request), request.params.language, request.body.texts)),
  );
  app.get(
    '/admin/service-keys',
    {
      config: { console: CONSOLE_ACCESS.administer },
      schema: documented({
        summary: 'The service keys (never their secrets)',
        security: 'console',
        result: AdminServiceKeys,
      }),
    },
    async () => ok(await administration.serviceKeys()),
  );
  app.post(
    '/admin/service-keys',
    {
      config: { console: CONSOLE_ACCESS.administer },
      schema: {
        body: AdminServiceKeyCreate,
        ...documented({
          summary: 'Create a service key; the key is in this answer only',
          security: 'console',
          result: AdminServiceKeyCreated,
        }),
      },
    },
    async (request, reply) => {
      void reply.header('cache-control', 'no-store');
      return ok(await administration.createServiceKey(guardedCaller(request), request.body));
    },
  );
  app.post(
    '/admin/service-keys/:keyId/revoke',
    {
      config: { console: CONSOLE_ACCESS.administer },
      preValidation: emptyBodyAsObject,
      schema: {
        params: AdminServiceKeyParams,
        body: EmptyRequest,
        ...documented({
          summary: 'Revoke a service key at once',
          security: 'console',
          result: AdminServiceKey,
        }),
      },
    },
    async (request) =>
      ok(await administration.revokeServiceKey(guardedCaller(request), request.params.keyId)),
  );
  app.get(
    '/admin/settings',
    {
      config: { console: CONSOLE_ACCESS.administer },
      schema: documented({
        summary: 'The settings in effect (secrets only as set or not set)',
        security: 'console',
        result: AdminSettings,
      }),
    },
    async () => ok(administration.settings()),
  );
};
