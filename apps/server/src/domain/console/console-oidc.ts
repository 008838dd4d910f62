import { canonicalUsername, type ConsoleOidcRefusal } from '@dea/contract';
import type * as OpenIdClient from 'openid-client';
import { randomToken } from '../../crypto/ids.js';
import { sha256 } from '../../crypto/keyed-hash.js';
import { seal, unseal } from '../../crypto/sealing.js';
import type { ConsoleOidcSession } from '../../store/sql/console-oidc.js';
import type { ConsoleAccount, ConsoleRole, ConsoleSession, Store } from '../../store/store.js';
import type { AuditEventName } from '../audit/audit-events.js';
import type { ConsoleAccounts } from '../identity/console-accounts.js';
import type { ConsoleOidcConfig } from './console-oidc-settings.js';
import { authenticatedAt, authenticatedWithin, showsSecondFactor } from '../oidc-assurance.js';

/** openid-client, loaded at the first sign-in with the provider (as the passkey library is). */
let openIdModule: Promise<typeof OpenIdClient> | undefined;
const openId = () => (openIdModule ??= import('openid-client'));

/** A sign-in again (before a code) must have authenticated the person at most this long before. */
const AGAIN_MAX_AGE_MS = 120_000;

/** How long a sign-in may take at the provider before its callback is refused (state-unknown). */
export const OIDC_FLOW_MS = 10 * 60_000;

/** Why a sign-in or a refresh through the provider was refused; the console shows it translated. */
export type OidcRefusal = ConsoleOidcRefusal;

export class ConsoleOidcRefused extends Error {
  constructor(
    readonly reason: OidcRefusal,
    detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}

/** The role order when a person's claim values map to several roles: the first wins. */
const ROLE_ORDER: readonly ConsoleRole[] = ['admin', 'helpdesk', 'auditor'];
/** The claim's values as strings: a list (groups) or one value. */
export function claimValuesOf(claims: Record<string, unknown>, claim: string): string[] | undefined {
  const value = claims[claim];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((entry): entry is string => typeof entry === 'string');
  return undefined;
}

/** The role a person's claim values map to, or undefined (no access). */
export function roleOfValues(values: readonly string[], config: Pick<ConsoleOidcConfig, 'roles'>) {
  return grantOfValues(values, config)?.role;
}

/**
 * The role a person's claim values map to with its scope (console-scope.ts), or undefined (no
 * access): the groups of every value mapping to that role, and no scope when one of those values
 * maps to it without a scope.
 */
export function grantOfValues(
  values: readonly string[],
  config: Pick<ConsoleOidcConfig, 'roles'>,
): { role: ConsoleRole; scope: readonly string[] | null } | undefined {
  const mappings = values.flatMap((value) => config.roles.get(value) ?? []);
  const role = ROLE_ORDER.find((candidate) => mappings.some((mapping) => mapping.role === candidate));
  if (role === undefined) return undefined;
  const ofRole = mappings.filter((mapping) => mapping.role === role);
  if (ofRole.some((mapping) => mapping.scope === undefined)) return { role, scope: null };
  return { role, scope: [...new Set(ofRole.flatMap((mapping) => mapping.scope ?? []))] };
}

export interface ConsoleOidcDependencies {
  store: Store;
  /** The one way console accounts are written: the account of a first sign-in, its role kept up to date. */
  accounts: ConsoleAccounts;
  config: ConsoleOidcConfig;
  /** Where the provider sends the browser back: the console API's /oidc/callback. */
  redirectUri: string;
  /** Sealing keys (the current one first): refresh tokens are kept sealed. */
  sealKeys: readonly Buffer[];
  now: () => number;
  /** Where a provider that cannot be reached is reported, naming the setting to check. */
  warn: (message: string) => void;
}

/**
 * The console's sign-in with the organisation's OpenID provider (ADR 0020): authorization code
 * with PKCE, state and nonce through openid-client; the flow bound to the browser that began it
 * and taken once; the ID token must show a second factor; the role comes from the token at every
 * sign-in and again at every refresh of the session (`current`, called by ConsoleAuth.caller).
 */
export class ConsoleOidc {
  private configuration: Promise<OpenIdClient.Configuration> | undefined;
  /** Refreshes under way in this process, one per session. */
  private readonly refreshing = new Map<string, Promise<ConsoleAccount | undefined>>();

  constructor(private readonly deps: ConsoleOidcDependencies) {}

  get providerName(): string {
    return this.deps.config.providerName;
  }

  /** The provider's configuration, discovered once (again after a failure). */
  private discovered(): Promise<OpenIdClient.Configuration> {
    const { config } = this.deps;
    this.configuration ??= openId()
      .then((client) =>
        client.discovery(
          config.issuer,
          config.clientId,
          undefined,
          config.clientSecret === undefined ? client.None() : client.ClientSecretBasic(config.clientSecret),
          config.insecureLoopback ? { execute: [client.allowInsecureRequests] } : undefined,
        ),
      )
      .catch((error: unknown) => {
        this.configuration = undefined;
        const message = `the OpenID provider at DEA_CONSOLE_OIDC_ISSUER=${config.issuer.href} could not be used: ${(error as Error).message}; check DEA_CONSOLE_OIDC_ISSUER (its discovery document must name exactly this issuer) and that this server reaches it`;
        this.deps.warn(message);
        throw new ConsoleOidcRefused('provider-unavailable', message);
      });
    return this.configuration;
  }

  /** Begins a sign-in: the provider's address to send the browser to, and the browser's flow token. */
  async start(clientAddress: string, again = false): Promise<{ url: string; browserToken: string }> {
    const { store, now, config } = this.deps;
    const at = now();
    const client = await openId();
    let configuration: OpenIdClient.Configuration;
    try {
      configuration = await this.discovered();
    } catch (error) {
      await this.refusedAudit('signin', error as ConsoleOidcRefused, clientAddress, at);
      throw error;
    }
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const browserToken = randomToken(32);
    await store.consoleOidc.addFlow(
      { browserHash: sha256(browserToken), state, nonce, codeVerifier, again, createdAt: at },
      at - OIDC_FLOW_MS,
    );
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: this.deps.redirectUri,
      scope: config.scopes,
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
      // Before a sensitive action (a code for a caller), the provider authenticates the person anew.
      ...(again && { prompt: 'login', max_age: '0' }),
    });
    return { url: url.href, browserToken };
  }

  /**
   * The provider's answer: the flow of this browser taken once and matched, the code exchanged,
   * the ID token checked (issuer, audience, nonce, signature by openid-client; the second factor
   * and the role here). Answers a console session already past its second factor.
   */
  async finish(
    query: string,
    browserToken: string | undefined,
    clientAddress: string,
  ): Promise<{ sessionId: string; xsrfToken: string }> {
    const { store, now, config } = this.deps;
    const at = now();
    const refuse = async (reason: OidcRefusal, detail: string, details: Record<string, unknown> = {}) => {
      const refusal = new ConsoleOidcRefused(reason, detail);
      await this.refusedAudit('signin', refusal, clientAddress, at, details);
      return refusal;
    };
    const client = await openId();
    const configuration = await this.discovered().catch(async (error: unknown) => {
      await this.refusedAudit('signin', error as ConsoleOidcRefused, clientAddress, at);
      throw error;
    });
    const callback = new URL(this.deps.redirectUri);
    callback.search = query;
    const params = callback.searchParams;
    // The flow is taken first, whatever the answer: a state is good for one callback only.
    const flow =
      browserToken === undefined
        ? undefined
        : await store.consoleOidc.takeFlow(sha256(browserToken), at - OIDC_FLOW_MS);
    if (params.has('error'))
      throw await refuse('provider-error', params.get('error_description') ?? params.get('error') ?? '', {
        error: params.get('error'),
      });
    if (flow === undefined || params.get('state') !== flow.state)
      throw await refuse(
        'state-unknown',
        flow === undefined
          ? 'no sign-in under way in this browser (used, expired or begun elsewhere)'
          : 'another state',
      );
    const expectedIssuer = configuration.serverMetadata().issuer;
    if (params.has('iss') && params.get('iss') !== expectedIssuer)
      throw await refuse('wrong-issuer', `iss ${params.get('iss')} is not ${expectedIssuer}`, {
        iss: params.get('iss'),
      });
    let tokens: Awaited<ReturnType<typeof OpenIdClient.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(configuration, callback, {
        pkceCodeVerifier: flow.codeVerifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      throw await refuse('token-refused', (error as Error).message, { error: (error as Error).message });
    }
    const claims = tokens.claims() as Record<string, unknown> & { sub: string };
    const issuer = String(claims.iss);
    const identity = { issuer, subject: claims.sub };
    // A sign-in again must be new at the provider (auth_time, on this server's clock), not its
    // session's earlier one.
    if (flow.again && !authenticatedWithin(claims, at, AGAIN_MAX_AGE_MS))
      throw await refuse(
        'token-refused',
        `a sign-in again needs an authentication at the provider within ${AGAIN_MAX_AGE_MS / 1000} s (auth_time ${JSON.stringify(claims.auth_time ?? null)})`,
        { ...identity, authTime: claims.auth_time ?? null },
      );
    if (config.requireMfa && !showsSecondFactor(claims, config.mfaAcrValues))
      throw await refuse('mfa-missing', 'the ID token shows no second factor (amr, acr)', {
        ...identity,
        amr: claims.amr ?? null,
        acr: claims.acr ?? null,
      });
    const values = await this.claimValues(client, configuration, claims, tokens.access_token, claims.sub);
    const grant = grantOfValues(values, config);
    if (grant === undefined)
      throw await refuse(
        'unmapped',
        `no value of ${config.roleClaim} maps to a role (DEA_CONSOLE_OIDC_ROLES)`,
        {
          ...identity,
          claimValues: values,
        },
      );
    const { role, scope } = grant;
    const found = await this.accountOf(identity, claims, grant, at);
    if (found === 'username-taken')
      throw await refuse('username-taken', 'the name belongs to another console account', identity);
    const { account, created } = found;
    if (account.disabled) throw await refuse('disabled', 'the console account is disabled', identity);
    const authAt = authenticatedAt(claims, at);
    const sessionId = randomToken(32);
    const xsrfToken = randomToken(32);
    const idHash = sha256(sessionId);
    await store.transaction(async (tx) => {
      await tx.console.createSession({
        idHash,
        accountId: account.id,
        xsrfHash: sha256(xsrfToken),
        createdAt: at,
        lastSeenAt: at,
      });
      // The provider's second factor stands for the passkey: the session is fully signed in. Its
      // freshness (DEA_CONSOLE_PASSKEY_FRESH_MINUTES) is that of the authentication at the provider
      // (auth_time), never this callback's: a silent sign-in through the provider's session is as
      // old as that session's authentication; a token that does not say when is never fresh.
      await tx.console.markPasskey(idHash, authAt ?? 0);
      // markPasskey sees the session then; it is seen now, however old the authentication.
      await tx.console.touchSession(idHash, at);
      await tx.consoleOidc.addSession({
        idHash,
        refreshToken: this.sealed(tokens.refresh_token, idHash),
        role,
        rolesAt: at,
      });
      await tx.audit.append(
        {
          event: 'console.oidc_signin',
          actor: `console:${account.username}`,
          clientAddress,
          details: {
            ...identity,
            role,
            ...(scope !== null && { scope }),
            claimValues: values,
            created,
            authenticatedAt: authAt === undefined ? null : new Date(authAt).toISOString(),
          },
        },
        at,
      );
    });
    return { sessionId, xsrfToken };
  }

  /**
   * The account of a session as it stands now, with the session's role: for a session signed in
   * through the provider whose role is due to be taken again, refreshed (one refresh per session
   * at a time in this process; of two instances refreshing at once, the first kept stands). A
   * person whose claim no longer maps, or whose refresh the provider refuses, has their session
   * ended (undefined). A local session is answered as it is.
   */
  async current(
    session: ConsoleSession,
    account: ConsoleAccount,
  ): Promise<{ account: ConsoleAccount; provider: boolean } | undefined> {
    const viaProvider = (current: ConsoleAccount | undefined) =>
      current === undefined ? undefined : { account: current, provider: true };
    const running = this.refreshing.get(session.idHash);
    if (running !== undefined) return viaProvider(await running);
    const oidcSession = await this.deps.store.consoleOidc.findSession(session.idHash);
    if (oidcSession === undefined) return { account, provider: false };
    if (this.deps.now() - oidcSession.rolesAt < this.deps.config.roleRefreshMs)
      return viaProvider({ ...account, role: oidcSession.role });
    let refresh = this.refreshing.get(session.idHash);
    if (refresh === undefined) {
      refresh = this.refresh(session, account, oidcSession).finally(() =>
        this.refreshing.delete(session.idHash),
      );
      this.refreshing.set(session.idHash, refresh);
    }
    return viaProvider(await refresh);
  }

  private async refresh(
    session: ConsoleSession,
    account: ConsoleAccount,
    read: ConsoleOidcSession,
  ): Promise<ConsoleAccount | undefined> {
    const { store, now, config } = this.deps;
    const at = now();
    const { idHash } = session;
    // What another instance's refresh kept, when it kept one first.
    const kept = async (): Promise<ConsoleAccount | undefined> => {
      const again = await store.consoleOidc.findSession(idHash);
      const ended = (await store.console.findSession(idHash))?.endedAt !== null;
      return again === undefined || again.rolesAt === read.rolesAt || ended
        ? undefined
        : {
            ...account,
            role: again.role,
            scope: (await store.console.findAccountById(account.id))?.scope ?? null,
          };
    };
    const end = async (reason: OidcRefusal, detail: string, details: Record<string, unknown> = {}) => {
      const other = await kept();
      if (other !== undefined) return other;
      await store.console.endSession(idHash, at);
      await this.refusedAudit(
        'refresh',
        new ConsoleOidcRefused(reason, detail),
        undefined,
        at,
        details,
        account,
      );
      return undefined;
    };
    const refreshToken = read.refreshToken === null ? undefined : this.unsealed(read.refreshToken, idHash);
    if (refreshToken === undefined)
      return end('refresh-failed', 'no refresh token to take the role again with');
    const client = await openId();
    let values: string[];
    let rotated: string | undefined;
    try {
      const configuration = await this.discovered();
      const tokens = await client.refreshTokenGrant(configuration, refreshToken);
      if (tokens.refresh_token !== undefined && tokens.refresh_token !== refreshToken)
        rotated = tokens.refresh_token;
      const claims = (tokens.claims() ?? {}) as Record<string, unknown>;
      values = await this.claimValues(
        client,
        configuration,
        claims,
        tokens.access_token,
        client.skipSubjectCheck,
      );
    } catch (error) {
      return end('refresh-failed', (error as Error).message, { error: (error as Error).message });
    }
    const grant = grantOfValues(values, config);
    if (grant === undefined)
      return end('unmapped', `no value of ${config.roleClaim} maps to a role`, { claimValues: values });
    const { role, scope } = grant;
    const saved = await store.transaction(async (tx) => {
      const first = await tx.consoleOidc.saveRefresh(idHash, read.rolesAt, {
        role,
        rolesAt: at,
        ...(rotated !== undefined && { refreshToken: this.sealed(rotated, idHash) }),
      });
      // The scope (console-scope.ts), like the role, is the token's as it stands now.
      if (first)
        await this.deps.accounts.takeGrant(tx, account, grant, at, {
          event: 'console.oidc_role_changed',
          from: read.role,
          details: { claimValues: values },
        });
      return first;
    });
    return saved ? { ...account, role, scope } : kept();
  }

  /** The role claim's values: from the ID token, else from the userinfo answer. */
  private async claimValues(
    client: typeof OpenIdClient,
    configuration: OpenIdClient.Configuration,
    claims: Record<string, unknown>,
    accessToken: string,
    subject: string | typeof OpenIdClient.skipSubjectCheck,
  ): Promise<string[]> {
    const { roleClaim } = this.deps.config;
    const inToken = claimValuesOf(claims, roleClaim);
    if (inToken !== undefined) return inToken;
    const userInfo = await client.fetchUserInfo(configuration, accessToken, subject);
    return claimValuesOf(userInfo, roleClaim) ?? [];
  }

  /**
   * The console account of a provider's subject, made at its first sign-in (no password: it
   * signs in only through the provider) under its preferred_username, e-mail or subject, and
   * given the role its token maps to now.
   */
  private async accountOf(
    identity: { issuer: string; subject: string },
    claims: Record<string, unknown>,
    grant: { role: ConsoleRole; scope: readonly string[] | null },
    at: number,
  ): Promise<{ account: ConsoleAccount; created: boolean } | 'username-taken'> {
    const { store } = this.deps;
    const { role, scope } = grant;
    const linked = await store.consoleOidc.findAccountIdOf(identity.issuer, identity.subject);
    const existing = linked === undefined ? undefined : await store.console.findAccountById(linked);
    if (existing !== undefined) {
      await this.deps.accounts.takeGrant(store, existing, grant, at);
      return { account: { ...existing, role, scope }, created: false };
    }
    const named = [claims.preferred_username, claims.email, identity.subject]
      .filter((value): value is string => typeof value === 'string')
      .map((value) => canonicalUsername(value))
      .find((value) => value !== undefined);
    if (named === undefined) return 'username-taken';
    if ((await store.console.findAccountByUsername(named)) !== undefined) {
      // The same person's first sign-in in another browser may have made it since the link was read.
      const made = await this.accountMadeFor(identity, grant);
      return made ?? 'username-taken';
    }
    try {
      const account = await this.deps.accounts.addSignedInElsewhere(
        {
          username: named,
          displayName:
            typeof claims.name === 'string' && claims.name.trim() !== '' ? claims.name.trim() : named,
          grant,
        },
        { provider: identity },
        { issuer: identity.issuer },
        at,
      );
      return { account, created: true };
    } catch (error) {
      // The same person's first sign-in in two browsers at once: the other made the account.
      const made = await this.accountMadeFor(identity, grant);
      if (made === undefined) throw error;
      return made;
    }
  }

  /** The account another sign-in of the same person linked to this identity, with this grant. */
  private async accountMadeFor(
    identity: { issuer: string; subject: string },
    grant: { role: ConsoleRole; scope: readonly string[] | null },
  ): Promise<{ account: ConsoleAccount; created: false } | undefined> {
    const { store } = this.deps;
    const made = await store.consoleOidc.findAccountIdOf(identity.issuer, identity.subject);
    const other = made === undefined ? undefined : await store.console.findAccountById(made);
    return other === undefined
      ? undefined
      : { account: { ...other, role: grant.role, scope: grant.scope }, created: false };
  }

  /**
   * At sign-out, the provider is asked to revoke the session's refresh token (RFC 7009, through
   * openid-client's tokenRevocation), so that it cannot be used again, by this server or anyone who
   * took it. True when the provider took it back; a session without one, or a provider that cannot
   * be reached, is answered false (warned, naming the setting): the console's own session ends anyway.
   */
  async revokeAtSignOut(idHash: string): Promise<boolean> {
    const read = await this.deps.store.consoleOidc.findSession(idHash);
    const sealedToken = read?.refreshToken ?? null;
    const token = sealedToken === null ? undefined : this.unsealed(sealedToken, idHash);
    if (token === undefined) return false;
    try {
      const client = await openId();
      await client.tokenRevocation(await this.discovered(), token, { token_type_hint: 'refresh_token' });
      return true;
    } catch (error) {
      this.deps.warn(
        `the OpenID provider at DEA_CONSOLE_OIDC_ISSUER=${this.deps.config.issuer.href} did not revoke a signed-out console session's refresh token: ${(error as Error).message}; check that it offers a revocation_endpoint and that this server reaches it`,
      );
      return false;
    }
  }

  private sealed(refreshToken: string | undefined, idHash: string): string | null {
    const [key] = this.deps.sealKeys;
    return refreshToken === undefined || key === undefined ? null : seal(key, refreshToken, `oidc:${idHash}`);
  }

  private unsealed(sealed: string, idHash: string): string | undefined {
    for (const key of this.deps.sealKeys) {
      try {
        return unseal(key, sealed, `oidc:${idHash}`);
      } catch {
        // the next accepted key
      }
    }
    return undefined;
  }

  private refusedAudit(
    stage: 'signin' | 'refresh',
    refusal: ConsoleOidcRefused,
    clientAddress: string | undefined,
    at: number,
    details: Record<string, unknown> = {},
    account?: ConsoleAccount,
  ) {
    const event: AuditEventName = 'console.oidc_refused';
    return this.deps.store.audit.append(
      {
        event,
        actor: `console:${account?.username ?? '?'}`,
        ...(clientAddress !== undefined && { clientAddress }),
        details: { stage, reason: refusal.reason, message: refusal.message, ...details },
      },
      at,
    );
  }
}
