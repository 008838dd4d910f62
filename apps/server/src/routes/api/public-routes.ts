import { BrandingList, EmptyRequest, LanguageList, MessageDictionary, MessageQuery } from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentBranding } from '../../domain/page/page-answers.js';
import { emptyBodyAsObject, ok } from '../../http/envelope.js';
import { documented } from '../../http/route-docs.js';

/**
 * What the page and the login application read before anyone signs in: languages, message
 * catalogs and branding. Public by design; they hold nothing about any user.
 */
export const publicRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { catalogs, store } = app.services;

  // Spec section 7: "result: list of languages", in the envelope like every call but userinfo and message.
  app.get(
    '/resourceFile/getLanguageList',
    { schema: documented({ summary: 'Languages with a catalog', security: 'none', result: LanguageList }) },
    async (_request, reply) => {
      void reply.header('cache-control', 'no-cache');
      return ok(await catalogs.languages());
    },
  );

  app.get(
    '/message',
    {
      schema: {
        querystring: MessageQuery,
        ...documented({
          summary: 'The message catalog of a language',
          security: 'none',
          result: MessageDictionary,
          bare: true,
        }),
      },
    },
    async (request, reply) => {
      const language = await catalogs.choose([request.query.lang]);
      void reply.header('cache-control', 'no-cache').header('content-language', language.replace('_', '-'));
      return catalogs.dictionary(language);
    },
  );

  app.post(
    '/customizationConfig/getCurrentConfig',
    {
      preValidation: emptyBodyAsObject,
      schema: {
        body: EmptyRequest,
        ...documented({ summary: 'Branding entries', security: 'none', result: BrandingList }),
      },
    },
    async () => ok(await currentBranding(store)),
  );
};
