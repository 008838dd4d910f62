import type * as OpenIdClient from 'openid-client';
import { newId, randomToken } from '../../crypto/ids.js';
import { keyedHash } from '../../crypto/keyed-hash.js';
import type { Store, User } from '../../store/store.js';
import { DomainError } from '../errors.js';
import type { ChannelRegistrationConfig } from '../channels/channel-registration-settings.js';
import { authenticatedWithin, showsSecondFactor } from '../oidc-assurance.js';
import type { RegistrationOidcConfig } from './registration-oidc-settings.js';
import {
  registrationSignInNeeded,
  type OpenedRegistration,
  type SignedInPerson,
} from './registration-sign-in.js';
import type { RememberedDevices } from '../page/remembered-devices.js';

/** openid-client, loaded at the first sign-in with the provider (as the console does). */
let openIdModule: Promise<typeof OpenIdClient> | undefined;
const openId = () => (openIdModule ??= import('openid-client'));

/** How long a sign-in at the provider may take, from its start to its callback (then the purge may remove it). */
export const REGISTRATION_OIDC_FLOW_MS = 10 * 60_000;
const FLOW_MS = REGISTRATION_OIDC_FLOW_MS;
/** The authentication at the provider (auth_time) must be at most this old at the callback. */
const FRESH_MS = 5 * 60_000;

/** Where the provider sends the browser back, under the channels page's origin. */
export const REGISTRATION_OIDC_CALLBACK = '/dea/api/registration/oidc/callback';

export interface RegistrationOidcDependencies {
  store: Store;
  hashKeys: readonly Buffer[];
  oidc: RegistrationOidcConfig;
  config: { channelRegistration: Pick<ChannelRegistrationConfig, 'channelsUrl' | 'registrationSessionMs'> };
  /** The browser of a session just opened becomes a remembered device (remembered-devices.ts). */
  rememberedDevices: Pick<RememberedDevices, 'remember'>;
  now: () => number;
  warn: (message: string) => void;
}

/**
 * The organisation's identity provider as a strong sign-in for the registration of channels
 *, as the console signs in with it (ADR 0020: openid-client, code flow with PKCE, state
 * and nonce): the person signed in with their password is sent there, and the registration
 * session opens only when the ID token names that same person (DEA_OIDC_USERNAME_CLAIM) and shows
 * a second factor (amr mfa, mca or two methods; an acr of DEA_OIDC_MFA_ACR_VALUES).
 */
export class RegistrationOidc {
  private configuration: Promise<OpenIdClient.Configuration> | undefined;

  constructor(private readonly deps: RegistrationOidcDependencies) {}

  get redirectUri(): string {
    return new URL(REGISTRATION_OIDC_CALLBACK, this.deps.config.channelRegistration.channelsUrl).href;
  }

  private discovered(): Promise<OpenIdClient.Configuration> {
    const { oidc } = this.deps;
    this.configuration ??= openId()
      .then((client) =>
        client.discovery(
          oidc.issuer,
          oidc.clientId,
          undefined,
          oidc.clientSecret === undefined ? client.None() : client.ClientSecretBasic(oidc.clientSecret),
          oidc.insecureLoopback ? { execute: [client.allowInsecureRequests] } : undefined,
        ),
      )
      .catch((error: unknown) => {
        this.configuration = undefined;
        this.deps.warn(
          `the OpenID provider at DEA_OIDC_ISSUER=${oidc.issuer.href} could not be used: ${(error as Error).message}; check DEA_OIDC_ISSUER (its discovery document must name exactly this issuer) and that this server reaches it`,
        );
        throw new DomainError(1, 'error.unavailable', {}, 'unavailable', { retryAfterSeconds: 30 });
      });
    return this.configuration;
  }

  private refused(person: SignedInPerson, reason: string, details: Record<string, unknown> = {}) {
    return this.deps.store.audit.append(
      {
        event: 'registration.refused',
        userId: person.user.id,
        actor: person.user.id,
        clientAddress: person.clientAddress,
        details: { method: 'oidc', reason, ...details },
      },
      this.deps.now(),
    );
  }

  /** The provider's address to send the signed-in person to. */
  async start(person: SignedInPerson): Promise<string> {
    const client = await openId();
    const configuration = await this.discovered().catch(async (error: unknown) => {
      await this.refused(person, 'provider-unavailable');
      throw error;
    });
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    await this.deps.store.registration.addOidcFlow({
      state,
      userId: person.user.id,
      nonce,
      codeVerifier,
      createdAt: this.deps.now(),
    });
    return client.buildAuthorizationUrl(configuration, {
      redirect_uri: this.redirectUri,
      scope: 'openid profile',
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
      // The person authenticates anew: an old session at the provider is no strong sign-in now.
      prompt: 'login',
      max_age: '0',
    }).href;
  }

  /** The provider's answer (the callback's query): opens a registration session; answers its token. */
  async finish(person: SignedInPerson & { query: string }): Promise<OpenedRegistration> {
    const { store, now, oidc, config } = this.deps;
    const client = await openId();
    const configuration = await this.discovered();
    const callback = new URL(this.redirectUri);
    callback.search = person.query;
    const state = callback.searchParams.get('state') ?? '';
    // The flow is taken first, whatever the answer: a state is good for one callback only, and only
    // for the person who began it.
    const flow = await store.registration.takeOidcFlow(person.user.id, state, now() - FLOW_MS);
    const refuse = async (reason: string, details: Record<string, unknown> = {}) => {
      await this.refused(person, reason, details);
      return registrationSignInNeeded();
    };
    if (callback.searchParams.has('error'))
      throw await refuse('provider-error', { error: callback.searchParams.get('error') });
    if (flow === undefined) throw await refuse('state-unknown');
    let claims: Record<string, unknown>;
    try {
      const tokens = await client.authorizationCodeGrant(configuration, callback, {
        pkceCodeVerifier: flow.codeVerifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims() ?? {};
    } catch (error) {
      throw await refuse('token-refused', { error: (error as Error).message });
    }
    const at = now();
    const issuer = String(claims.iss);
    const subject = String(claims.sub);
    // The person authenticated at the provider just now (prompt=login, max_age=0), by its
    // auth_time on this server's clock: an older session there is no strong sign-in now.
    if (!authenticatedWithin(claims, at, FRESH_MS))
      throw await refuse('token-refused', {
        error: `no authentication at the provider within ${FRESH_MS / 1000} s (auth_time)`,
        authTime: claims.auth_time ?? null,
      });
    const identity = await this.identityOf(person, issuer, subject, claims);
    if (identity === 'other-person')
      throw await refuse('other-person', {
        issuer,
        subject,
        claim: oidc.usernameClaim,
        named: claims[oidc.usernameClaim] ?? null,
      });
    if (!showsSecondFactor(claims, oidc.mfaAcrValues))
      throw await refuse('mfa-missing', { amr: claims.amr ?? null, acr: claims.acr ?? null });
    // The first registration through the provider links its subject to the person; of two first
    // uses at once (two accounts of the provider), the link kept decides.
    const linked =
      identity === 'first' &&
      (await store.registrationOidcLinks.link({ issuer, subject, userId: person.user.id, linkedAt: at }));
    if (
      identity === 'first' &&
      !linked &&
      (await store.registrationOidcLinks.userOf(issuer, subject)) !== person.user.id
    )
      throw await refuse('other-person', {
        issuer,
        subject,
        claim: oidc.usernameClaim,
        linkedMeanwhile: true,
      });
    const token = randomToken(32);
    const expiresAt = at + config.channelRegistration.registrationSessionMs;
    const sessionId = newId();
    await store.registration.addOpen({
      id: sessionId,
      userId: person.user.id,
      method: 'oidc',
      channelId: null,
      tokenHash: keyedHash(this.deps.hashKeys[0]!, 'registration-session', token),
      createdAt: at,
      expiresAt,
      openedAt: at,
    });
    await store.audit.append(
      {
        event: 'registration.opened',
        userId: person.user.id,
        actor: person.user.id,
        clientAddress: person.clientAddress,
        details: {
          method: 'oidc',
          sessionId,
          issuer,
          subject,
          ...(linked && { linked: true }),
          expiresAt: new Date(expiresAt).toISOString(),
        },
      },
      at,
    );
    return { token, expiresAt, device: await this.deps.rememberedDevices.remember(person, 'oidc') };
  }

  /**
   * Who the provider's person is for this registration (ADR 0033): a subject linked already is
   * compared by issuer and subject alone ('linked' when it is this person's); a person linked to
   * another subject of this issuer is someone else's account there; unlinked, the claim
   * DEA_OIDC_USERNAME_CLAIM must be exactly the person's user name (as stored: no case or width
   * folded, so that `ALICE` or a fullwidth `ａlice` at the provider is not alice) and its subject
   * is then linked ('first').
   */
  private async identityOf(
    person: SignedInPerson,
    issuer: string,
    subject: string,
    claims: Record<string, unknown>,
  ): Promise<'linked' | 'first' | 'other-person'> {
    const links = this.deps.store.registrationOidcLinks;
    const linkedUser = await links.userOf(issuer, subject);
    if (linkedUser !== undefined) return linkedUser === person.user.id ? 'linked' : 'other-person';
    if ((await links.subjectOf(person.user.id, issuer)) !== undefined) return 'other-person';
    return claims[this.deps.oidc.usernameClaim] === person.user.username ? 'first' : 'other-person';
  }
}

/**
 * Removes a person's links to subjects of the provider (ADR 0033), for a person whose account there
 * was made anew: their next registration through the provider links again, by the exact claim.
 * `dea user unlink-provider` (actor cli). Answers how many links were removed.
 */
export function unlinkRegistrationProvider(
  services: { store: Store; now: () => number },
  user: User,
  actor: string,
): Promise<number> {
  const { store, now } = services;
  return store.transaction(async (tx) => {
    const removed = await tx.registrationOidcLinks.unlinkAll(user.id);
    await tx.audit.append(
      { event: 'registration.provider_unlinked', userId: user.id, actor, details: { count: removed } },
      now(),
    );
    return removed;
  });
}
