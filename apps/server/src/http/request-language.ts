import type { FastifyRequest } from 'fastify';
import { acceptedLanguages } from '../domain/texts/language.js';

/** The body's locale (tempPass calls), then ?lang, then Accept-Language, then the user's locale. */
export function languageCandidates(request: FastifyRequest): (string | undefined)[] {
  const body = request.body as { locale?: unknown; attrs?: { locale?: unknown } } | undefined;
  const bodyLocale = typeof body?.locale === 'string' ? body.locale : undefined;
  const attrsLocale = typeof body?.attrs?.locale === 'string' ? body.attrs.locale : undefined;
  const query = request.query as { lang?: unknown } | undefined;
  const queryLang = typeof query?.lang === 'string' ? query.lang : undefined;
  return [
    bodyLocale,
    attrsLocale,
    queryLang,
    ...acceptedLanguages(request.headers['accept-language']),
    request.signedIn?.user.locale ?? undefined,
  ];
}

export function requestLanguage(request: FastifyRequest): Promise<string> {
  return request.server.services.catalogs.choose(languageCandidates(request));
}
