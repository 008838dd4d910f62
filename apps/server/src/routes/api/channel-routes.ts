import {
  ChannelAddRequest,
  ChannelAddResult,
  ChannelChangeResult,
  ChannelListResult,
  ChannelProveRequest,
  ChannelRemoveRequest,
  ChannelTestRequest,
  ChannelTestResult,
  ChannelUndoRequest,
  ChannelUndoResult,
  DevicesForgetResult,
  REGISTRATION_COOKIE_NAME,
  REMEMBERED_DEVICE_COOKIE_NAME,
  RegistrationChallengeRequest,
  RegistrationChallengeResult,
  RegistrationOpenRequest,
  RegistrationOpenResult,
  RegistrationWaysResult,
  isChannelKey,
} from '@dea/contract';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { DomainError, invalidRequest } from '../../domain/errors.js';
import { registrationSignInNeeded } from '../../domain/registration/registration-sign-in.js';
import type { ChannelView } from '../../domain/channels/channel-proof.js';
import { ok } from '../../http/envelope.js';
import { documented } from '../../http/route-docs.js';
import { requireSession } from '../../http/session-guard.js';
import { registrationCookies } from './registration-cookie.js';
import { CHANNELS_PAGE_PATH } from '../../domain/channels/channel-registration-settings.js';
import { signedInUser } from './user-routes.js';
import { passkeyRoutes } from './passkey-routes.js';

const iso = (at: number): string => new Date(at).toISOString();

function viewOf(view: ChannelView) {
  if (view.state === 'pending')
    return {
      state: view.state,
      key: view.key,
      type: view.type,
      to: view.to,
      proofId: view.proofId,
      until: iso(view.expiresAt),
      triesLeft: view.triesLeft,
    };
  return {
    state: view.state,
    key: view.key,
    type: view.type,
    to: view.to,
    reference: view.reference,
    origin: view.origin,
    ...(view.source !== undefined && { source: view.source }),
    usable: view.trust.usable,
    ...(!view.trust.usable && {
      reason: view.trust.reason,
      until: iso(view.trust.reason === 'cooling' ? view.trust.until : view.trust.since),
    }),
  };
}

/**
 * The channels page's calls. Every call needs the page's session (a password: one
 * factor); the calls that change channels need a registration session besides, opened by a code
 * sent to a proven channel, a registration link (domain/registration/registration-sign-in.ts), the identity
 * provider or one of the person's passkeys (passkey-routes.ts), and kept in an HTTP-only cookie. The rules are the domain's: registration-sign-in.ts and channel-proof.ts.
 */
export const channelRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', requireSession);
  const { services } = app;
  const person = (request: FastifyRequest, locale?: string) => ({
    user: signedInUser(request),
    actor: signedInUser(request).id,
    clientAddress: request.ip,
    locale,
  });
  const registered = async (request: FastifyRequest) =>
    services.registrationSignIn.require(signedInUser(request), request.cookies[REGISTRATION_COOKIE_NAME]);

  app.post(
    '/registration/ways',
    {
      schema: {
        ...documented({
          summary:
            'Whether a registration session is open, and the strong sign-ins that may open one: the proven channels a code may go to, the identity provider',
          security: 'session',
          result: RegistrationWaysResult,
        }),
      },
    },
    async (request) => {
      const user = signedInUser(request);
      const open = await services.registrationSignIn
        .require(user, request.cookies[REGISTRATION_COOKIE_NAME])
        .catch((error: unknown) => {
          if (error instanceof DomainError && error.kind === 'refused') return undefined;
          throw error;
        });
      return ok({
        open: open !== undefined,
        ...(open !== undefined && { expiresAt: iso(open.expiresAt) }),
        oidc: services.registrationOidc !== undefined,
        channels: await services.registrationSignIn.channelsForChallenge(user),
      });
    },
  );

  app.post(
    '/registration/challenge',
    {
      schema: {
        body: RegistrationChallengeRequest,
        ...documented({
          summary: 'Send a code that opens the registration of channels to one of the proven channels',
          security: 'session',
          result: RegistrationChallengeResult,
        }),
      },
    },
    async (request) => {
      const sent = await services.registrationSignIn.challenge({
        ...person(request, request.body.locale),
        reference: request.body.reference,
      });
      return ok({ challengeId: sent.challengeId, to: sent.to, expiresAt: iso(sent.expiresAt) });
    },
  );

  app.post(
    '/registration/open',
    {
      schema: {
        body: RegistrationOpenRequest,
        ...documented({
          summary: 'Open a registration session with the code of a challenge or a registration link',
          security: 'session',
          result: RegistrationOpenResult,
        }),
      },
    },
    async (request, reply) => {
      const body = request.body;
      const opened =
        'link' in body
          ? await services.registrationSignIn.openWithLink({ ...person(request), link: body.link })
          : await services.registrationSignIn.openWithCode({
              ...person(request),
              challengeId: body.challengeId,
              code: body.code,
            });
      registrationCookies(request, reply, opened);
      return ok({ expiresAt: iso(opened.expiresAt) });
    },
  );

  // The organisation's identity provider (DEA_OIDC_ISSUER): the browser is sent there and back.
  app.get(
    '/registration/oidc/start',
    {
      schema: {
        summary:
          "Begins the strong sign-in at the organisation's identity provider (DEA_OIDC_ISSUER): 303 to its authorization endpoint (code, PKCE, state, nonce)",
        security: [{ sessionCookie: [] }],
      },
    },
    async (request, reply) => {
      const oidc = services.registrationOidc;
      if (oidc === undefined) throw registrationSignInNeeded();
      return reply.redirect(await oidc.start(person(request)), 303);
    },
  );

  app.get(
    '/registration/oidc/callback',
    {
      schema: {
        summary:
          'Where the identity provider sends the browser back (the redirect URI to register): 303 to the channels page with a registration session, or with #signin=refused',
        security: [{ sessionCookie: [] }],
      },
    },
    async (request, reply) => {
      const oidc = services.registrationOidc;
      if (oidc === undefined) throw registrationSignInNeeded();
      const page = services.config.channelRegistration.channelsUrl;
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      try {
        const opened = await oidc.finish({ ...person(request), query });
        registrationCookies(request, reply, opened);
        return reply.redirect(page, 303);
      } catch (error) {
        if (!(error instanceof DomainError) || error.kind !== 'refused') throw error;
        return reply.redirect(`${page}#signin=refused`, 303);
      }
    },
  );

  app.post(
    '/channels/list',
    {
      schema: {
        ...documented({
          summary: "The person's channels with their source and trust, and the addresses waiting for a proof",
          security: 'session',
          result: ChannelListResult,
        }),
      },
    },
    async (request) => {
      await registered(request);
      const user = signedInUser(request);
      const policy = await services.channelProofs.policyOf(user);
      return ok({
        channels: (await services.channelProofs.list(user)).map(viewOf),
        policy: {
          types: policy.registrationChannelTypes,
          max: policy.registrationMaxChannels,
          coolingHours: policy.registrationCoolingHours,
        },
      });
    },
  );

  app.post(
    '/channels/add',
    {
      schema: {
        body: ChannelAddRequest,
        ...documented({
          summary: 'Send a code to prove a new address',
          security: 'session',
          result: ChannelAddResult,
        }),
      },
    },
    async (request) => {
      await registered(request);
      const { key, address, locale } = request.body as { key: string; address: string; locale?: string };
      if (!isChannelKey(key)) throw invalidRequest('key: not a channel key');
      const started = await services.channelProofs.start({
        ...person(request, locale),
        key,
        address,
        origin: 'owner',
      });
      return ok({ proofId: started.proofId, to: started.to, expiresAt: iso(started.expiresAt) });
    },
  );

  app.post(
    '/channels/prove',
    {
      schema: {
        body: ChannelProveRequest,
        ...documented({
          summary: 'Prove an address with the code sent to it',
          security: 'session',
          result: ChannelListResult,
        }),
      },
    },
    async (request) => {
      await registered(request);
      const { proofId, code, locale } = request.body;
      const view = await services.channelProofs.prove({
        ...person(request, locale),
        proofId,
        code,
        origin: 'owner',
      });
      return ok({ channels: [viewOf(view)] });
    },
  );

  app.post(
    '/registration/devices/forget',
    {
      schema: {
        ...documented({
          summary:
            "Forget every remembered device of the person (the browsers on which a code may be shown on screen), this one's cookie too",
          security: 'session',
          result: DevicesForgetResult,
        }),
      },
    },
    async (request, reply) => {
      await registered(request);
      const forgotten = await services.rememberedDevices.forgetAll(signedInUser(request), {
        actor: signedInUser(request).id,
        clientAddress: request.ip,
      });
      void reply.clearCookie(REMEMBERED_DEVICE_COOKIE_NAME, { path: '/dea/' });
      return ok({ forgotten });
    },
  );

  app.post(
    '/channels/test',
    {
      schema: {
        body: ChannelTestRequest,
        ...documented({
          summary: "Send a test message (no code) to one of the person's channels, within the send limits",
          security: 'session',
          result: ChannelTestResult,
        }),
      },
    },
    async (request) => {
      await registered(request);
      const { key, locale } = request.body as { key: string; locale?: string };
      if (!isChannelKey(key)) throw invalidRequest('key: not a channel key');
      return ok(await services.channelProofs.sendTest({ ...person(request, locale), key }));
    },
  );

  app.post(
    '/channels/remove',
    {
      schema: {
        body: ChannelRemoveRequest,
        ...documented({
          summary: 'Remove a channel the person registered',
          security: 'session',
          result: ChannelChangeResult,
        }),
      },
    },
    async (request) => {
      await registered(request);
      const { key } = request.body as { key: string };
      if (!isChannelKey(key)) throw invalidRequest('key: not a channel key');
      return ok({ done: await services.channelProofs.remove({ ...person(request), key, origin: 'owner' }) });
    },
  );

  // The person's own passkeys: beside these calls, under the same session hook.
  await app.register(passkeyRoutes);
};

/**
 * The link of a new channel's notice ("this was not me"): no session, since whoever holds the
 * person's other channel uses it, maybe on another device. Its token is the one proof it needs.
 */
export const channelUndoRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/channels/undo',
    {
      schema: {
        body: ChannelUndoRequest,
        ...documented({
          summary: `Undo a channel's registration with the link of its notice (${CHANNELS_PAGE_PATH}#undo=...): takes back what was added since, blocks the addresses removed, ends every session; alerts the help desk that someone else knows the password`,
          security: 'none',
          result: ChannelUndoResult,
        }),
      },
    },
    async (request) => {
      const outcome = await app.services.channelProofs.undo(request.body.token, request.ip);
      return ok({ done: true, passwordChange: outcome.passwordChange });
    },
  );
};
