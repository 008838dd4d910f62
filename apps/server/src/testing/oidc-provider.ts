import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Provider from 'oidc-provider';

/** A person of the test provider: what their ID token says. */
export interface ProviderPerson {
  groups: string[];
  /** RFC 8176 methods of their sign-in; none: a password alone. */
  amr?: string[];
  acr?: string;
  name?: string;
  /** Their preferred_username; absent: the login's name (their subject). */
  preferredUsername?: string;
}

export interface TestOidcProvider {
  /** http://127.0.0.1:<port> */
  issuer: string;
  clientId: string;
  /** A file (mode 600) holding the client's secret. */
  clientSecretFile: string;
  /** The people who may sign in (by the name typed on the provider's login page); change them at will. */
  people: Map<string, ProviderPerson>;
  /**
   * Goes through the provider's own login and consent pages (HTTP, no browser) from the
   * authorization address the console sent the browser to; answers where the provider sends it back.
   * Each call is a new browser: the provider has no session of it yet.
   */
  signIn(authorizationUrl: string, login: string): Promise<URL>;
  /**
   * A browser that keeps the provider's cookies from one sign-in to the next: with the provider's
   * session, a later sign-in goes back without a login (single sign-on) unless the console asks
   * for one (prompt=login, max_age).
   */
  browser(): { signIn(authorizationUrl: string, login: string): Promise<URL> };
  /** The names typed on the provider's login page, in order: a sign-in through its session adds none. */
  logins: string[];
  /**
   * The clock of the provider's logins, their ID tokens' auth_time (ms; Date.now unless set): the
   * tests set the app's, so that an authentication is as old as the app's clock says.
   */
  clock: () => number;
  /** The refresh tokens the provider has destroyed (revoked, or rotated by a refresh), in order. */
  destroyedRefreshTokens: string[];
  close(): Promise<void>;
}

/**
 * A real OpenID provider (oidc-provider, certified) on a free port of 127.0.0.1, with its own
 * login and consent pages. Its ID tokens carry the person's groups and amr; the login page's name
 * is the account, its amr and acr those of the person (the login page has no second factor of its
 * own), its time (auth_time) that of `clock`. A browser that keeps its cookies (`browser`) signs in
 * again through the provider's session without a login, unless asked for one (prompt=login,
 * max_age). Refresh tokens are issued to the one client, whose redirect URI is `redirectUri`.
 */
export async function startOidcProvider(
  redirectUri: string,
  options: {
    /** false: ID tokens say when the person authenticated only when asked (max_age), as some providers do. */
    requireAuthTime?: boolean;
  } = {},
): Promise<TestOidcProvider> {
  const people = new Map<string, ProviderPerson>();
  let handler: RequestListener = (_request, response) => {
    response.statusCode = 503;
    response.end();
  };
  const server: Server = createServer((request, response) => handler(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = 'dea-console';
  const clientSecret = 'a secret of the console client, long enough';
  const folder = mkdtempSync(join(tmpdir(), 'dea-oidc-'));
  const clientSecretFile = join(folder, 'client-secret');
  writeFileSync(clientSecretFile, `${clientSecret}\n`);
  chmodSync(clientSecretFile, 0o600);

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        // Every ID token says when the person authenticated (as Keycloak's and Okta's do).
        require_auth_time: options.requireAuthTime ?? true,
      },
    ],
    findAccount: (_ctx: unknown, id: string) => {
      const person = people.get(id);
      return (
        person && {
          accountId: id,
          claims: () => ({
            sub: id,
            preferred_username: person.preferredUsername ?? id,
            name: person.name ?? id,
            groups: person.groups,
            amr: person.amr,
          }),
        }
      );
    },
    claims: { openid: ['sub', 'groups', 'amr', 'acr'], profile: ['name', 'preferred_username'] },
    // The groups in the ID token itself, as Keycloak's, Entra ID's and Okta's group claims are.
    conformIdTokenClaims: false,
    issueRefreshToken: () => true,
    cookies: { keys: ['a key of the test provider cookies'] },
    features: { devInteractions: { enabled: true }, revocation: { enabled: true } },
  });
  // The login page's answer with the person's amr and acr (the development login gives none),
  // taken before the provider's own routes see it; its pages (GET) are the provider's.
  const answerInteraction: RequestListener = (request, response) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const details = await provider.interactionDetails(request, response);
      if (form.get('prompt') === 'login') {
        const login = form.get('login') ?? '';
        const person = people.get(login);
        logins.push(login);
        await provider.interactionFinished(
          request,
          response,
          person === undefined
            ? { error: 'access_denied', error_description: 'no such person' }
            : {
                login: {
                  accountId: login,
                  amr: person.amr,
                  acr: person.acr,
                  ts: Math.floor(testProvider.clock() / 1000),
                },
              },
          { mergeWithLastSubmission: false },
        );
        return;
      }
      const grant =
        (details.grantId === undefined ? undefined : await provider.Grant.find(details.grantId)) ??
        new provider.Grant({
          accountId: details.session?.accountId ?? '',
          clientId: details.params.client_id,
        });
      const missingScope = details.prompt.details.missingOIDCScope as string[] | undefined;
      const missingClaims = details.prompt.details.missingOIDCClaims as string[] | undefined;
      if (missingScope !== undefined) grant.addOIDCScope(missingScope.join(' '));
      if (missingClaims !== undefined) grant.addOIDCClaims(missingClaims);
      await provider.interactionFinished(
        request,
        response,
        { consent: { grantId: await grant.save() } },
        { mergeWithLastSubmission: true },
      );
    })().catch((error: unknown) => {
      response.statusCode = 500;
      response.end(String(error));
    });
  };
  const destroyedRefreshTokens: string[] = [];
  const logins: string[] = [];
  provider.on('refresh_token.destroyed', (...args: unknown[]) => {
    destroyedRefreshTokens.push((args[0] as { jti: string }).jti);
  });
  const providerHandler = provider.callback();
  handler = (request, response) => {
    if (request.method === 'POST' && /^\/interaction\/[^/?]+$/.test(request.url ?? ''))
      answerInteraction(request, response);
    else providerHandler(request, response);
  };

  /** Sign-ins through the provider's pages with the cookies of one browser. */
  const signInWith = async (
    cookies: Map<string, string>,
    authorizationUrl: string,
    login: string,
  ): Promise<URL> => {
    const call = async (url: string, form?: Record<string, string>) => {
      const response = await fetch(url, {
        method: form === undefined ? 'GET' : 'POST',
        redirect: 'manual',
        headers: {
          cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
          ...(form !== undefined && { 'content-type': 'application/x-www-form-urlencoded' }),
        },
        ...(form !== undefined && { body: new URLSearchParams(form).toString() }),
      });
      for (const cookie of response.headers.getSetCookie()) {
        const [pair = ''] = cookie.split(';');
        const at = pair.indexOf('=');
        cookies.set(pair.slice(0, at), pair.slice(at + 1));
      }
      return response;
    };
    let url = authorizationUrl;
    for (let step = 0; step < 12; step += 1) {
      const response = await call(url);
      const location = response.headers.get('location');
      if (location === null)
        throw new Error(`the provider answered ${response.status} at ${url}: ${await response.text()}`);
      const next = new URL(location, url);
      if (next.href.startsWith(redirectUri)) return next;
      if (/^\/interaction\/[^/]+$/.test(next.pathname)) {
        const page = await (await call(next.href)).text();
        const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1] ?? '';
        const submitted = await call(
          next.href,
          prompt === 'login' ? { prompt, login, password: 'any' } : { prompt },
        );
        url = new URL(submitted.headers.get('location') ?? '', next).href;
      } else {
        url = next.href;
      }
    }
    throw new Error('the provider did not send the browser back');
  };

  const testProvider: TestOidcProvider = {
    destroyedRefreshTokens,
    issuer,
    clientId,
    clientSecretFile,
    people,
    signIn: (authorizationUrl, login) => signInWith(new Map(), authorizationUrl, login),
    browser() {
      const cookies = new Map<string, string>();
      return { signIn: (authorizationUrl, login) => signInWith(cookies, authorizationUrl, login) };
    },
    logins,
    clock: Date.now,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(folder, { recursive: true, force: true });
    },
  };
  return testProvider;
}
