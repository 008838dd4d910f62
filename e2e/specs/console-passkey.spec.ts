import { expect, test, type Page } from '@playwright/test';
import {
  addConsoleAccount,
  addVirtualAuthenticator,
  CONSOLE_PASSWORD as PASSWORD,
  consoleOrigin,
  dea,
  enrolmentLinkIn,
} from '../support/console';
import { type RunningServer, startServer } from '../support/start-server';

// The console's sign-in in Chromium at the level of its calls: a password, then a passkey from
// Chromium's virtual authenticator (WebAuthn over CDP), registered at the first sign-in and used at
// the next. The console's screens are in console-roles.spec.ts.
let server: RunningServer;
let origin: string;
/** The token of ada's enrolment link, as `dea admin add` printed it. */
let enrolment: string;

test.beforeAll(async () => {
  server = await startServer();
  origin = consoleOrigin(server);
  enrolment = new URL(addConsoleAccount(server, 'ada', 'helpdesk', 'Ada Agent')).hash.replace('#enrol=', '');
  addConsoleAccount(server, 'noor', 'auditor', 'Noor Auditor');
});

test.afterAll(async () => {
  await server?.stop();
});

/** Runs in the page: the console's calls and the browser's WebAuthn API, as the console page makes them. */
async function consoleCall(
  page: Page,
  step: 'password' | 'register' | 'authenticate' | 'me' | 'end',
  { password = PASSWORD, link }: { password?: string; link?: string } = {},
) {
  return page.evaluate(
    async ({ step, password, link }) => {
      const toBytes = (text: string) =>
        Uint8Array.from(
          atob(
            text
              .replace(/-/g, '+')
              .replace(/_/g, '/')
              .padEnd(Math.ceil(text.length / 4) * 4, '='),
          ),
          (c) => c.charCodeAt(0),
        );
      const toText = (buffer: ArrayBuffer | null) =>
        buffer === null
          ? undefined
          : btoa(String.fromCharCode(...new Uint8Array(buffer)))
              .replace(/\+/g, '-')
              .replace(/\//g, '_')
              .replace(/=+$/, '');
      /** The options of a WebAuthn ceremony as JSON, and whatever else an answer holds. */
      interface Ceremony {
        challenge: string;
        user: { id: string; name: string; displayName: string };
        excludeCredentials: { id: string; type: 'public-key' }[];
        allowCredentials: { id: string; type: 'public-key' }[];
        [other: string]: unknown;
      }
      const token = /(?:^|; )dea_console_token=([^;]*)/.exec(document.cookie)?.[1] ?? '';
      const call = async (path: string, body?: unknown) => {
        const response = await fetch(`/dea/admin-api/${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: { 'content-type': 'application/json', 'x-console-token': token },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
        return {
          status: response.status,
          body: (await response.json()) as { error: number; message: string; result: Ceremony },
        };
      };
      if (step === 'password') return call('session', { username: 'ada', password });
      if (step === 'me') return call('me');
      if (step === 'end') return call('session/end', {});
      if (step === 'register') {
        const enrolment = link === undefined ? {} : { enrolment: link };
        const started = await call('passkey/registration/options', enrolment);
        if (started.status !== 200 || started.body.error !== 0) return started;
        const options = started.body.result;
        const credential = (await navigator.credentials.create({
          publicKey: {
            ...options,
            challenge: toBytes(options.challenge),
            user: { ...options.user, id: toBytes(options.user.id) },
            excludeCredentials: options.excludeCredentials.map((each) => ({
              ...each,
              id: toBytes(each.id),
            })),
            // rp and pubKeyCredParams come as the server sent them.
          } as unknown as PublicKeyCredentialCreationOptions,
        })) as PublicKeyCredential;
        const response = credential.response as AuthenticatorAttestationResponse;
        return call('passkey/registration', {
          id: credential.id,
          rawId: toText(credential.rawId),
          type: credential.type,
          response: {
            clientDataJSON: toText(response.clientDataJSON),
            attestationObject: toText(response.attestationObject),
            transports: response.getTransports(),
          },
          clientExtensionResults: credential.getClientExtensionResults(),
          ...enrolment,
        });
      }
      const started = await call('passkey/authentication/options', {});
      if (started.status !== 200 || started.body.error !== 0) return started;
      const options = started.body.result;
      const credential = (await navigator.credentials.get({
        publicKey: {
          ...options,
          challenge: toBytes(options.challenge),
          allowCredentials: options.allowCredentials.map((each) => ({
            ...each,
            id: toBytes(each.id),
          })),
        },
      })) as PublicKeyCredential;
      const response = credential.response as AuthenticatorAssertionResponse;
      return call('passkey/authentication', {
        id: credential.id,
        rawId: toText(credential.rawId),
        type: credential.type,
        response: {
          clientDataJSON: toText(response.clientDataJSON),
          authenticatorData: toText(response.authenticatorData),
          signature: toText(response.signature),
          ...(response.userHandle !== null && { userHandle: toText(response.userHandle) }),
        },
        clientExtensionResults: credential.getClientExtensionResults(),
      });
    },
    { step, password, link },
  );
}

test('a console account registers its passkey at the first sign-in and needs it at the next', async ({
  page,
  context,
}) => {
  await addVirtualAuthenticator(context, page);
  await page.goto(`${origin}/admin/`);

  expect((await consoleCall(page, 'password', { password: 'not the password' })).body).toMatchObject({
    error: 3,
  });
  expect((await consoleCall(page, 'me')).status).toBe(401);
  expect((await consoleCall(page, 'password')).body).toMatchObject({
    error: 0,
    result: { next: 'register-passkey' },
  });
  expect((await consoleCall(page, 'me')).body.result).toEqual({
    username: 'ada',
    displayName: 'Ada Agent',
    role: 'helpdesk',
    passkeyVerified: false,
    next: 'register-passkey',
  });
  // The password alone does not bind a passkey: the account's enrolment link does, once.
  expect((await consoleCall(page, 'register')).body).toMatchObject({
    error: 3,
    message: expect.stringContaining('needs its enrolment link'),
  });
  expect((await consoleCall(page, 'register', { link: enrolment })).body).toMatchObject({ error: 0 });
  expect((await consoleCall(page, 'me')).body.result).toMatchObject({ passkeyVerified: true });
  expect((await consoleCall(page, 'end')).body).toMatchObject({ error: 0 });
  expect((await consoleCall(page, 'me')).status).toBe(401);

  // The next sign-in: the password alone is not enough, and a second passkey cannot be added without the first.
  expect((await consoleCall(page, 'password')).body).toMatchObject({ result: { next: 'passkey' } });
  expect((await consoleCall(page, 'me')).body.result).toMatchObject({ passkeyVerified: false });
  expect((await consoleCall(page, 'register')).status).toBe(401);
  expect((await consoleCall(page, 'authenticate')).body).toMatchObject({ error: 0 });
  expect((await consoleCall(page, 'me')).body.result).toMatchObject({ passkeyVerified: true });
});

test('the console refuses a first passkey without the enrolment link, and registers it once the link is opened', async ({
  page,
  context,
}) => {
  // Two new links in a row (each also ends the account's sessions): the first is replaced.
  const replaced = enrolmentLinkIn(dea(server, ['admin', 'reset-passkeys', 'noor']));
  const link = enrolmentLinkIn(dea(server, ['admin', 'reset-passkeys', 'noor']));

  await addVirtualAuthenticator(context, page);
  await page.goto(`${origin}/admin/`);
  await page.getByLabel('Console user name').fill('noor');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByTestId('console-enrolment')).toContainText(
    'Registering your first passkey needs the enrolment link',
  );
  const register = page.getByRole('button', { name: 'Register a passkey' });
  await register.click();
  await expect(page.getByTestId('console-error')).toContainText(
    "Registering this account's first passkey needs its enrolment link",
  );
  expect((await consoleCall(page, 'me')).body.result).toMatchObject({ passkeyVerified: false });

  // Pasted into the console already open, a link is taken off the address; the replaced one is refused.
  await page.goto(replaced);
  await expect(page.getByTestId('console-enrolment')).toContainText('You opened your enrolment link');
  await expect(page).toHaveURL(`${origin}/admin/`);
  await register.click();
  await expect(page.getByTestId('console-error')).toContainText('This enrolment link cannot be used');
  expect((await consoleCall(page, 'me')).body.result).toMatchObject({ passkeyVerified: false });

  await page.goto(link);
  await register.click();
  await expect(page.getByTestId('console-account')).toBeVisible();
  expect((await consoleCall(page, 'me')).body.result).toMatchObject({ passkeyVerified: true });
  expect(page.url()).not.toContain('enrol');
});
