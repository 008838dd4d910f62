import { beforeEach, describe, expect, it } from 'vitest';
import { httpStatus, installFakeServer, ok, type FakeServer, offContract } from '../testing/fake-server';
import { navigations } from '../testing/render-page';
import {
  createAndSendCode,
  createCode,
  getBranding,
  getLanguageList,
  getMessages,
  getPolicy,
  getUserLocale,
  queryAvailableChannels,
  signIn,
} from './methods';

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer();
});

describe('the calls of spec section 7', () => {
  it('user/get matches the user id and returns id and userLocale', async () => {
    await expect(getUserLocale('user-1')).resolves.toBe('en');
    expect(server.callsTo('POST user/get')[0]?.body).toEqual({
      match: [{ field: 'id', op: 'eq', value: 'user-1' }],
      return: ['id', 'userLocale'],
    });
  });

  it("user/getPolicy asks for the 'Self Service' options", async () => {
    await getPolicy('user-1');
    expect(server.callsTo('POST user/getPolicy')[0]?.body).toEqual({
      user: { id: 'user-1' },
      category: { name: 'Self Service' },
      return: ['options'],
    });
  });

  it("queryAvailableChannels sends action 'ec'", async () => {
    await queryAvailableChannels('user-1');
    expect(server.callsTo('POST user/queryAvailableChannels')[0]?.body).toEqual({
      action: 'ec',
      user: { id: 'user-1' },
    });
  });

  it('tempPass/create asks for one code with id and password', async () => {
    await expect(createCode('user-1', 'de')).resolves.toEqual({ id: 'code-1', password: 'CODE1ABCDE' });
    expect(server.callsTo('POST tempPass/create')[0]?.body).toEqual({
      count: 1,
      return: ['id', 'password'],
      attrs: { user: { id: 'user-1' }, locale: 'de' },
    });
  });

  it('tempPass/createAndSend names channel type, recipient and locale', async () => {
    await expect(createAndSendCode('user-1', 'smtp', 'ref-3', 'fr')).resolves.toBe('+49 *** ***12');
    expect(server.callsTo('POST tempPass/createAndSend')[0]?.body).toEqual({
      user: { id: 'user-1' },
      options: { channel: 'smtp', recipient: 'ref-3' },
      locale: 'fr',
    });
  });

  it("GET message: lang is the file name without 'messages_', omitted for 'messages'", async () => {
    await getMessages('messages');
    await getMessages('messages_de');
    await getMessages('messages_pt_BR');
    const queries = server.callsTo('GET message').map((call) => call.query.toString());
    expect(queries).toEqual(['', 'lang=de', 'lang=pt_BR']);
  });

  it('the language list is the result of the envelope (spec section 7); a bare list is not one', async () => {
    server.answer('GET resourceFile/getLanguageList', ok([{ languageCode: 'en', languageName: 'English' }]));
    await expect(getLanguageList()).resolves.toEqual([{ languageCode: 'en', languageName: 'English' }]);
    server.answer(
      'GET resourceFile/getLanguageList',
      offContract(
        { body: [{ languageCode: 'en', languageName: 'English' }] },
        'a bare list, as no server sends',
      ),
    );
    await expect(getLanguageList()).rejects.toThrow();
  });

  it('branding is a POST with an empty body', async () => {
    await getBranding();
    expect(server.callsTo('POST customizationConfig/getCurrentConfig')[0]?.body).toEqual({});
  });

  it('sign-in posts user name and password to the absolute /login/api/session', async () => {
    await expect(signIn('dana', 'correct horse')).resolves.toEqual({ username: 'dana' });
    const [call] = server.callsTo('POST /login/api/session');
    expect(call?.body).toEqual({ username: 'dana', password: 'correct horse' });
    expect(call?.headers.get('Content-Type')).toBe('application/json');
  });

  it('a refused sign-in never leaves for the login application', async () => {
    server.answer('POST /login/api/session', httpStatus(403));
    await expect(signIn('dana', 'x')).rejects.toMatchObject({ status: 403, leavingPage: false });
    expect(navigations()).toEqual([]);
  });
});
