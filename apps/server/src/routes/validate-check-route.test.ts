import { describe } from 'vitest';
import { createServiceKey } from '../domain/codes/service-keys.js';
import { appTest } from '../testing/fixtures.js';
import { recordPostgresQueries } from '../testing/recorded-sql.js';
import { fullwidth } from '../testing/spellings.js';
import { STORE_KINDS } from '../testing/stores.js';
import type { TestApp, TestUser } from '../testing/test-app.js';

/** What privacyIDEA's documentation shows a plugin reads from an answer. */
interface PluginAnswer {
  result: {
    status: boolean;
    value?: boolean;
    authentication?: string;
    error?: { code: number; message: string };
  };
  detail: { message?: string } | null;
}

async function listening(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
}

async function codeFor(
  t: TestApp,
  policy: Record<string, unknown> = {},
): Promise<{ user: TestUser; code: string }> {
  const user = await t.createUser({
    policy: { enableECode: true, emergencyCodeDelivery: 'Display', ...policy },
  });
  return { user, code: await t.codeOnScreen(user) };
}

/** As the PAM, SimpleSAMLphp and Keycloak plugins send it: a form, the API key as the header. */
async function check(
  base: string,
  fields: Record<string, string>,
  authorization?: string,
  json = false,
  userAgent?: string,
): Promise<{ status: number; body: PluginAnswer }> {
  const response = await fetch(`${base}/validate/check`, {
    method: 'POST',
    headers: {
      'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded',
      ...(authorization !== undefined && { authorization }),
      ...(userAgent !== undefined && { 'user-agent': userAgent }),
    },
    body: json ? JSON.stringify(fields) : new URLSearchParams(fields).toString(),
  });
  return { status: response.status, body: (await response.json()) as PluginAnswer };
}

/**
 * A text percent-encoded as privacyIDEA's FreeRADIUS plugin encodes `user` and `pass` before its
 * HTTP library form-encodes them again (each UTF-8 byte but letters, digits and `-._~` as `%XY`).
 */
const percentEncoded = (text: string): string =>
  [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

/** A code as a person types it from the screen: in groups of three with spaces (`UF2 AJF MFWQ`). */
const spaced = (code: string): string => (code.match(/.{1,3}/g) ?? []).join(' ');

const ACCEPT = { status: true, value: true, authentication: 'ACCEPT' };
const REJECT = { status: true, value: false, authentication: 'REJECT' };

describe.each(STORE_KINDS)('POST /validate/check on %s', (kind) => {
  appTest.override('storeKind', kind);

  appTest(
    'accepts an emergency code once for a plugin with an API key, and rejects every failure alike',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const base = await listening(t);
      const { key } = await createServiceKey(
        t.services.store,
        t.services.keys.serviceKey,
        'keycloak',
        ['verify'],
        t.clock.now(),
      );
      const { user, code } = await codeFor(t);

      const wrong = await check(base, { user: user.username, pass: 'WRONG23456', realm: 'example' }, key);
      expect(wrong).toMatchObject({
        status: 200,
        body: { result: REJECT, detail: { message: 'wrong otp value' } },
      });
      const unknown = await check(base, { user: 'nobody-here', pass: code }, key);
      expect(unknown.body.result).toEqual(REJECT);
      expect(unknown.body.detail).toEqual(wrong.body.detail);

      const accepted = await check(
        base,
        { user: user.username, pass: code.toLowerCase() },
        `Bearer ${key}`,
        true,
      );
      expect(accepted).toMatchObject({
        status: 200,
        body: { jsonrpc: '2.0', id: 1, result: ACCEPT, detail: { message: 'matching 1 tokens' } },
      });
      expect((await check(base, { user: user.username, pass: code }, key)).body.result).toEqual(REJECT);
      expect(await t.services.store.audit.list({ userId: user.id, event: 'code.used' })).toMatchObject([
        { actor: 'service-key:keycloak', clientAddress: '127.0.0.1' },
      ]);
    },
  );

  appTest(
    'with an API key, reads the key with the user, then verifies: two statements on PostgreSQL',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const base = await listening(t);
      const { key, serviceKey } = await createServiceKey(
        t.services.store,
        t.services.keys.serviceKey,
        'two-reads',
        ['verify'],
        t.clock.now(),
      );
      const { user, code } = await codeFor(t);
      const recorded = kind === 'postgres' ? recordPostgresQueries() : undefined;
      let answers: unknown[];
      try {
        answers = [
          (await check(base, { user: user.username.toUpperCase(), pass: code }, key)).body.result,
          (
            await check(
              base,
              { user: user.username, pass: code },
              `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`,
            )
          ).status,
          (await check(base, { user: 'x'.repeat(201), pass: code }, key)).status,
        ];
      } finally {
        recorded?.stop();
      }
      expect(answers).toEqual([ACCEPT, 401, 400]);
      if (recorded === undefined) return;
      // Statements naming this key or user (other work may run beside): the key with the user, then
      // dea_verify_code; a wrong key's request reads and goes no further; a name too long is not read.
      const about = recorded.queries.filter(
        (query) =>
          JSON.stringify(query.values).includes(serviceKey.id) ||
          JSON.stringify(query.values).includes(user.id) ||
          JSON.stringify(query.values).includes(user.username),
      );
      expect(about.map((query) => (query.text.includes('dea_verify_code') ? 'verify' : 'read'))).toEqual([
        'read',
        'verify',
        'read',
        'read',
      ]);
    },
  );

  appTest(
    'needs a service key unless the caller is listed, and names a missing parameter',
    async ({ startApp, expect }) => {
      const t = await startApp();
      const base = await listening(t);
      const { user, code } = await codeFor(t);
      const verifyKey = await createServiceKey(
        t.services.store,
        t.services.keys.serviceKey,
        'pam',
        ['verify'],
        t.clock.now(),
      );
      const scimKey = await createServiceKey(
        t.services.store,
        t.services.keys.serviceKey,
        'idp',
        ['scim'],
        t.clock.now(),
      );
      for (const authorization of [undefined, 'nonsense', scimKey.key]) {
        const refused = await check(base, { user: user.username, pass: code }, authorization);
        expect(refused.status).toBe(401);
        expect(refused.body).toMatchObject({
          result: { status: false, error: { code: 4033 } },
          detail: null,
        });
        expect(refused.body.result.error?.message).toMatch(/^ERR4033: Authentication failure/);
      }
      for (const [fields, missing] of [
        [{ user: user.username }, 'pass'],
        [{ pass: code }, 'user'],
        [{ user: '', pass: code }, 'user'],
      ] as const) {
        const refused = await check(base, fields, verifyKey.key);
        expect(refused).toMatchObject({
          status: 400,
          body: {
            result: {
              status: false,
              error: { code: 905, message: `ERR905: Missing parameter: '${missing}'` },
            },
          },
        });
      }
      expect(await t.services.store.codes.countActive(user.id, t.clock.now())).toBe(1);
    },
  );

  appTest('lets listed addresses check without a key', async ({ startApp, expect }) => {
    const t = await startApp({ DEA_VALIDATE_CHECK_CLIENTS: '10.9.9.9,127.0.0.0/8' });
    const base = await listening(t);
    const { user, code } = await codeFor(t);
    expect((await check(base, { user: user.username, pass: code })).body.result).toEqual(ACCEPT);
    expect(await t.services.store.audit.list({ userId: user.id, event: 'code.used' })).toMatchObject([
      { actor: 'validate-check:127.0.0.1' },
    ]);
    // A key that is presented must be valid, listed address or not.
    expect((await check(base, { user: user.username, pass: code }, 'dea_wrong.key')).status).toBe(401);
  });

  appTest(
    'counts every failed check toward the lock, also in a parallel burst',
    async ({ startApp, expect }) => {
      const t = await startApp({ DEA_VERIFY_MAX_FAILURES: '4', DEA_VALIDATE_CHECK_CLIENTS: 'loopback' });
      const base = await listening(t);
      const { user, code } = await codeFor(t);
      const burst = await Promise.all(
        Array.from({ length: 10 }, () => check(base, { user: user.username, pass: 'ZZZZ22223333' })),
      );
      expect(burst.map((answer) => answer.body.result)).toEqual(Array.from({ length: 10 }, () => REJECT));
      expect(
        await t.services.store.audit.list({ userId: user.id, event: 'code.verify_failed' }),
      ).toHaveLength(4);
      expect((await check(base, { user: user.username, pass: code })).body.result).toEqual(REJECT);
    },
  );

  appTest(
    "decodes a form's fields once more for the clients privacyIDEA does, as its FreeRADIUS plugin needs, and for no other",
    async ({ startApp, expect }) => {
      const t = await startApp({ DEA_VALIDATE_CHECK_CLIENTS: 'loopback' });
      const base = await listening(t);
      const juergen = await t.createUser({ username: `jürgen-${kind}` });
      const form = (user: string, pass: string, agent?: string) =>
        check(base, { user, pass }, undefined, false, agent);
      const json = (user: string, pass: string, agent?: string) =>
        check(base, { user, pass }, undefined, true, agent);
      const fresh = () => t.codeOnScreen(juergen);

      // As the FreeRADIUS plugin sends them: a non-ASCII name, a fullwidth spelling, a spaced code.
      let code = await fresh();
      expect(
        (await form(percentEncoded(juergen.username), percentEncoded(spaced(code)), 'FreeRADIUS')).body
          .result,
      ).toEqual(ACCEPT);
      code = await fresh();
      expect(
        (await form(percentEncoded(fullwidth(juergen.username)), percentEncoded(code), 'FreeRADIUS')).body
          .result,
      ).toEqual(ACCEPT);
      // Without a User-Agent, and for any client privacyIDEA does not name, alike.
      code = await fresh();
      expect(
        (await form(percentEncoded(juergen.username), percentEncoded(spaced(code)))).body.result,
      ).toEqual(ACCEPT);

      // The clients privacyIDEA takes as they send: a form's fields are the name and code themselves.
      code = await fresh();
      for (const agent of ['simpleSAMLphp', 'privacyidea-cp/2.0', 'privacyIDEA-LDAP-Proxy/1.0'])
        expect((await form(percentEncoded(juergen.username), code, agent)).body.result, agent).toEqual(
          REJECT,
        );
      expect((await form(juergen.username, spaced(code), 'privacyIDEA-LDAP-Proxy/1.0')).body.result).toEqual(
        ACCEPT,
      );
      // A JSON body is never decoded twice, whoever sends it.
      code = await fresh();
      expect((await json(percentEncoded(juergen.username), code, 'FreeRADIUS')).body.result).toEqual(REJECT);
      expect((await json(fullwidth(juergen.username), spaced(code), 'FreeRADIUS')).body.result).toEqual(
        ACCEPT,
      );

      // privacyIDEA's own case: a % in what is sent is taken as an escape by a client it decodes
      // twice for, unless that client sent it escaped; its LDAP proxy sends it as it is.
      const percent = await t.createUser({ username: `pw%45-${kind}` });
      code = await t.codeOnScreen(percent);
      expect((await form(percent.username, code, 'some-generic-agent/1.0')).body.result).toEqual(REJECT);
      expect(
        (await form(percentEncoded(percent.username), code, 'some-generic-agent/1.0')).body.result,
      ).toEqual(ACCEPT);
      code = await t.codeOnScreen(percent);
      expect((await form(percent.username, code, 'privacyIDEA-LDAP-Proxy')).body.result).toEqual(ACCEPT);
      expect(await t.services.store.audit.list({ event: 'code.verify_failed', limit: 100 })).toHaveLength(5);
    },
  );
});
