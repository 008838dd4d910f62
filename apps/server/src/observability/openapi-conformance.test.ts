import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceKey } from '../domain/codes/service-keys.js';
import { API, bodies } from '../testing/api-bodies.js';
import { createTestApp, type SignedIn, type TestApp } from '../testing/test-app.js';

interface Documented {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>
  >;
}

/** A small deterministic generator: the same "random" requests on every run. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function fuzzValues(random: () => number): unknown[] {
  const atoms = [null, true, 0, -1, 1.5, 2 ** 53, '', 'x', 'é'.repeat(300), [], {}, ['id'], { id: 'x' }];
  const pick = () => atoms[Math.floor(random() * atoms.length)];
  return Array.from({ length: 25 }, () => {
    const keys = [
      'user',
      'id',
      'count',
      'return',
      'attrs',
      'options',
      'locale',
      'code',
      'userId',
      'match',
      'action',
      'category',
      'username',
      'password',
    ];
    const body: Record<string, unknown> = {};
    for (const key of keys)
      if (random() < 0.4)
        body[key] =
          random() < 0.3 ? { id: pick(), name: pick(), channel: pick(), recipient: pick() } : pick();
    return body;
  });
}

/**
 * The served OpenAPI document describes what the server really answers: a few hundred requests,
 * right and wrong, signed in and not, and each answer's status must be documented for its
 * operation and its body must match the documented schema.
 */
describe('the OpenAPI document against real answers', () => {
  let t: TestApp;
  let document: Documented;
  let session: SignedIn;
  let channelSession: SignedIn;
  let channelRef: string;
  let key: string;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // ajv-formats is CommonJS: its function is the default export's own default.
  (formats as unknown as { default: (ajv: Ajv2020) => void }).default(ajv);

  beforeAll(async () => {
    t = await createTestApp('sqlite', { DEA_CODE_MAX_UNUSED: '2', DEA_SEND_LIMIT_PER_USER: '2' });
    document = (await t.app.inject({ method: 'GET', url: '/dea/api/docs/json' })).json();
    const user = await t.createUser();
    session = await t.signIn(user);
    const channelUser = await t.createUser({
      policy: { enableECode: true, emergencyCodeDelivery: 'Channel' },
      channels: { mobile: '+491705550199' },
    });
    channelSession = await t.signIn(channelUser);
    channelRef = (await t.services.store.channels.listOfUser(channelUser.id))[0]?.id ?? '';
    ({ key } = await createServiceKey(
      t.services.store,
      t.services.keys.serviceKey,
      'k',
      ['verify'],
      t.clock.now(),
    ));
  });
  afterAll(() => t.close());

  const checked: string[] = [];
  function expectDocumented(method: string, path: string, status: number, body: string): void {
    const operation = document.paths[path]?.[method.toLowerCase()];
    expect(operation, `${method} ${path} is documented`).toBeDefined();
    const response = operation?.responses[String(status)];
    expect(response, `${method} ${path} answered ${status}: ${body}`).toBeDefined();
    const schema = response?.content?.['application/json']?.schema;
    if (schema === undefined) return;
    const validate = ajv.compile(schema);
    const valid = validate(JSON.parse(body));
    expect(valid, `${method} ${path} ${status} ${body}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    checked.push(`${method} ${path} ${status}`);
  }

  async function send(
    method: 'GET' | 'POST',
    path: string,
    payload: unknown,
    headers: Record<string, string> = {},
  ) {
    const response = await t.app.inject({
      method,
      url: path,
      headers:
        payload === undefined || typeof payload === 'string'
          ? headers
          : { 'content-type': 'application/json', ...headers },
      ...(payload !== undefined && {
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
      }),
    });
    expectDocumented(method, path.split('?')[0] ?? path, response.statusCode, response.body);
  }

  it('documents every answer of every call', async () => {
    const random = generator(20261123);
    const posts: [string, (id: string) => unknown, 'session' | 'none' | 'key'][] = [
      [`${API}/userinfo`, () => ({}), 'session'],
      [`${API}/user/get`, (id) => bodies.userGet(id), 'session'],
      [`${API}/customizationConfig/getCurrentConfig`, () => ({}), 'none'],
      [`${API}/user/getPolicy`, (id) => bodies.getPolicy(id), 'session'],
      [`${API}/user/queryAvailableChannels`, (id) => bodies.channels(id), 'session'],
      [`${API}/tempPass/create`, (id) => bodies.create(id), 'session'],
      [`${API}/tempPass/createAndSend`, (id) => bodies.createAndSend(id, 'sms', channelRef), 'session'],
      [`${API}/tempPass/verify`, (id) => ({ userId: id, code: 'ABCDEFGH23' }), 'key'],
      ['/login/api/session', () => ({ username: 'nobody', password: 'wrong' }), 'none'],
    ];
    for (const [path, body, security] of posts) {
      const who = path.endsWith('createAndSend') ? channelSession : session;
      const headers =
        security === 'session' ? who.headers : security === 'key' ? { authorization: `Bearer ${key}` } : {};
      // Right, repeated until limits answer (148, 140), and for other users.
      for (let index = 0; index < 4; index += 1) await send('POST', path, body(who.userId), headers);
      await send('POST', path, body('someone-else'), headers);
      // Without credentials, with a forged token or key, not JSON, wrong types, unknown fields.
      await send('POST', path, body(who.userId));
      await send('POST', path, body(who.userId), {
        ...headers,
        'x-xsrf-token': 'forged',
        authorization: 'Bearer dea_x.y',
      });
      await send('POST', path, '{"unterminated', { ...headers, 'content-type': 'application/json' });
      await send('POST', path, 'plain', { ...headers, 'content-type': 'text/plain' });
      await send('POST', path, { ...(body(who.userId) as object), unexpected: 1 }, headers);
      for (const fuzzed of fuzzValues(random)) await send('POST', path, fuzzed, headers);
    }
    for (const query of [
      '',
      '?lang=de',
      '?lang=xx',
      '?lang=%00',
      '?lang=../../etc',
      '?lang=de&lang=fr',
      '?other=1',
    ]) {
      await send('GET', `${API}/message${query}`, undefined);
    }
    await send('GET', `${API}/resourceFile/getLanguageList`, undefined);
    // Many statuses and both forms of 200 were really seen.
    const seen = new Set(checked);
    for (const answer of [
      'POST /dea/api/tempPass/create 200',
      'POST /dea/api/tempPass/create 400',
      'POST /dea/api/tempPass/create 403',
      'POST /dea/api/tempPass/verify 401',
      'POST /login/api/session 200',
    ]) {
      expect(seen).toContain(answer);
    }
  });
});
