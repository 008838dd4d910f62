import { ErrorEnvelope } from '@dea/contract';
import Value from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, bodies } from '../testing/api-bodies.js';
import { dumpStoreText } from '../testing/store-dump.js';
import { DOOR_STORE_KINDS } from '../testing/stores.js';
import { createTestApp, type SignedIn, type TestApp, type TestUser } from '../testing/test-app.js';

interface BadRequest {
  what: string;
  url: string;
  payload: string;
  contentType?: string;
  /** A word the message must hold, so it says what is wrong. */
  says: RegExp;
}

const json = (value: unknown): string => JSON.stringify(value);

describe.each(DOOR_STORE_KINDS)('malformed requests on %s', (kind) => {
  let t: TestApp;
  let user: TestUser;
  let session: SignedIn;
  let reference: string;
  beforeAll(async () => {
    t = await createTestApp(kind);
    user = await t.createUser({
      policy: { enableECode: true, emergencyCodeDelivery: 'Channel' },
      channels: { mobile: '+49 170 5550112' },
    });
    session = await t.signIn(user);
    reference = (await t.services.store.channels.listOfUser(user.id))[0]?.id ?? '';
  });
  afterAll(() => t.close());

  function badRequests(): BadRequest[] {
    const id = user.id;
    const send = bodies.createAndSend(id, 'sms', reference);
    const create = bodies.create(id);
    return [
      { what: 'userinfo with a field', url: `${API}/userinfo`, payload: json({ extra: 1 }), says: /extra/ },
      {
        what: 'user/get with a number id',
        url: `${API}/user/get`,
        payload: json({ ...bodies.userGet(id), match: [{ field: 'id', op: 'eq', value: 42 }] }),
        says: /match\/0\/value/,
      },
      {
        what: 'user/get asking for the password hash',
        url: `${API}/user/get`,
        payload: json({ ...bodies.userGet(id), return: ['passwordHash'] }),
        says: /return\/0 must be one of: id, userLocale/,
      },
      {
        what: 'user/get without return',
        url: `${API}/user/get`,
        payload: json({ match: bodies.userGet(id).match }),
        says: /return/,
      },
      {
        what: 'getPolicy with a number user id',
        url: `${API}/user/getPolicy`,
        payload: json({ ...bodies.getPolicy(id), user: { id: 7 } }),
        says: /user\/id/,
      },
      {
        what: 'getPolicy without category',
        url: `${API}/user/getPolicy`,
        payload: json({ user: { id }, return: ['options'] }),
        says: /category/,
      },
      {
        what: 'getPolicy with an unknown field',
        url: `${API}/user/getPolicy`,
        payload: json({ ...bodies.getPolicy(id), admin: true }),
        says: /admin/,
      },
      {
        what: 'channels with another action',
        url: `${API}/user/queryAvailableChannels`,
        payload: json({ ...bodies.channels(id), action: 'all' }),
        says: /action must be ec$/,
      },
      {
        what: 'create with count 2',
        url: `${API}/tempPass/create`,
        payload: json({ ...create, count: 2 }),
        says: /body\/count must be 1$/,
      },
      {
        what: 'create with count "1"',
        url: `${API}/tempPass/create`,
        payload: json({ ...create, count: '1' }),
        says: /count/,
      },
      {
        what: 'create setting its own code length',
        url: `${API}/tempPass/create`,
        payload: json({ ...create, attrs: { ...create.attrs, codeLength: 4 } }),
        says: /codeLength/,
      },
      {
        what: 'create with a bad locale',
        url: `${API}/tempPass/create`,
        payload: json({ ...create, attrs: { ...create.attrs, locale: 'en"><script>' } }),
        says: /locale/,
      },
      {
        what: 'create without attrs',
        url: `${API}/tempPass/create`,
        payload: json({ count: 1, return: ['id', 'password'] }),
        says: /attrs/,
      },
      {
        what: "send to channel 'fax'",
        url: `${API}/tempPass/createAndSend`,
        payload: json({ ...send, options: { ...send.options, channel: 'fax' } }),
        says: /body\/options\/channel must be one of: sms, smtp, TELEPHONE, TWITTER$/,
      },
      {
        what: 'send with an empty recipient',
        url: `${API}/tempPass/createAndSend`,
        payload: json({ ...send, options: { ...send.options, recipient: '' } }),
        says: /recipient/,
      },
      {
        what: 'send with a number recipient',
        url: `${API}/tempPass/createAndSend`,
        payload: json({ ...send, options: { ...send.options, recipient: 5 } }),
        says: /recipient/,
      },
      {
        what: 'send with a bad locale',
        url: `${API}/tempPass/createAndSend`,
        payload: json({ ...send, locale: 'german please' }),
        says: /locale/,
      },
      {
        what: 'send without options',
        url: `${API}/tempPass/createAndSend`,
        payload: json({ user: { id }, locale: 'en' }),
        says: /options/,
      },
      {
        what: 'a body that is not JSON',
        url: `${API}/tempPass/createAndSend`,
        payload: '{"user": {"id": ',
        says: /JSON/,
      },
      {
        what: 'a prototype-polluting body',
        url: `${API}/tempPass/create`,
        payload: '{"__proto__": {"count": 1}}',
        says: /JSON/,
      },
      { what: 'a JSON array', url: `${API}/tempPass/create`, payload: '[1]', says: /object/ },
      { what: 'JSON null', url: `${API}/tempPass/create`, payload: 'null', says: /object/ },
      {
        what: 'an empty body where one is needed',
        url: `${API}/tempPass/create`,
        payload: '',
        says: /object/,
      },
      {
        what: 'text/plain',
        url: `${API}/tempPass/create`,
        payload: json(create),
        contentType: 'text/plain',
        says: /Content-Type/,
      },
      {
        what: 'form data',
        url: `${API}/tempPass/createAndSend`,
        payload: 'user=1',
        contentType: 'application/x-www-form-urlencoded',
        says: /Content-Type/,
      },
      {
        what: 'a body over the limit',
        url: `${API}/tempPass/createAndSend`,
        payload: json({ ...send, options: { ...send.options, recipient: 'x'.repeat(20_000) } }),
        says: /too large/,
      },
      {
        what: 'a sign-in without password',
        url: '/login/api/session',
        payload: json({ username: user.username }),
        says: /password/,
      },
      {
        what: 'a sign-in with a number password',
        url: '/login/api/session',
        payload: json({ username: user.username, password: 1234 }),
        says: /password/,
      },
    ];
  }

  const post = (request: BadRequest, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: request.url,
      payload: request.payload,
      headers: { ...session.headers, 'content-type': request.contentType ?? 'application/json', ...headers },
    });

  it('answers every bad body with HTTP 400, error 2 and a message that says what is wrong, changing nothing', async () => {
    const before = await dumpStoreText(t.testStore);
    for (const request of badRequests()) {
      const response = await post(request);
      expect(response.statusCode, request.what).toBe(400);
      const body = response.json<{ error: number; message: string; result: unknown }>();
      expect(Value.Check(ErrorEnvelope, body), request.what).toBe(true);
      expect(body.error, request.what).toBe(2);
      expect(body.result, request.what).toBeNull();
      expect(body.message, request.what).toMatch(/^The request is not valid: /);
      expect(body.message, request.what).toMatch(request.says);
      expect(response.headers['cache-control'], request.what).toBe('no-store');
    }
    expect(await dumpStoreText(t.testStore)).toBe(before);
    expect(await t.services.store.codes.countActive(user.id, t.clock.now())).toBe(0);
    // The same user and session still work: the refusals changed nothing.
    const good = await t.call(
      `${API}/tempPass/createAndSend`,
      bodies.createAndSend(user.id, 'sms', reference),
      session,
    );
    expect(good.json()).toMatchObject({ error: 0 });
  });

  it('writes the message in the language of the request', async () => {
    const request = badRequests().find((candidate) => candidate.what === 'getPolicy with a number user id');
    if (request === undefined) throw new Error('missing case');
    const german = (await post(request, { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' })).json<{
      message: string;
    }>();
    expect(german.message).toMatch(/^Die Anfrage ist ungültig: .*user\/id/);
    const french = (await post(request, { 'accept-language': 'fr' })).json<{ message: string }>();
    expect(french.message).not.toBe(german.message);
    expect(french.message).toMatch(/user\/id/);
    // The locale of a tempPass body wins over the header.
    const send = bodies.createAndSend(user.id, 'fax' as 'sms', reference, 'de');
    const byBody = await post(
      { what: 'fax', url: `${API}/tempPass/createAndSend`, payload: json(send), says: /./ },
      { 'accept-language': 'en' },
    );
    expect(byBody.json<{ message: string }>().message).toMatch(/^Die Anfrage ist ungültig: /);
  });

  it('answers business refusals with HTTP 200 and the envelope in the language of the body', async () => {
    const response = await t.call(
      `${API}/tempPass/createAndSend`,
      bodies.createAndSend(user.id, 'sms', 'forged', 'de'),
      session,
    );
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      error: 130,
      message: 'Dieser Empfänger gehört nicht zu Ihren registrierten Kanälen.',
      result: null,
    });
  });

  it('names the request in every answer and every error, keeping an id a proxy sent', async () => {
    const ok = await t.call(`${API}/userinfo`, {}, session);
    const id = ok.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await t.call(`${API}/userinfo`, {}, session)).headers['x-request-id']).not.toBe(id);
    const refused = await post(badRequests()[0] as BadRequest, { 'x-request-id': 'lb-7f3a9c21e4' });
    expect(refused.headers['x-request-id']).toBe('lb-7f3a9c21e4');
    // A refusal of the request names it in the header; its envelope is the spec's.
    expect(Object.keys(refused.json())).toEqual(['error', 'message', 'result']);
    // An id that does not look like one (too short, or with characters a log line should not get)
    // is replaced.
    for (const given of ['abc', 'x'.repeat(129), 'id with spaces\n{"forged":1}']) {
      const answer = await post(badRequests()[0] as BadRequest, { 'x-request-id': given });
      expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
    // A failure of the server also names it in the envelope, for the user's report.
    t.app.lifecycle.state = 'closing';
    try {
      const unavailable = await t.call(`${API}/userinfo`, {}, session);
      expect(unavailable.statusCode).toBe(503);
      const body = unavailable.json<{ requestId: string }>();
      expect(Value.Check(ErrorEnvelope, body)).toBe(true);
      expect(body.requestId).toBe(unavailable.headers['x-request-id']);
    } finally {
      t.app.lifecycle.state = 'serving';
    }
  });
});
