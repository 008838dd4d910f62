import { beforeEach, describe, expect, it, vi } from 'vitest';
import { navigations } from '../testing/render-page';
import {
  envelopeError,
  type FakeAnswer,
  httpStatus,
  installFakeServer,
  offContract,
  ok,
  type FakeServer,
} from '../testing/fake-server';
import { EnvelopeError, HttpError, NetworkError } from './api-error';
import { request, requestResult, setRequestLanguage } from './request';

/** Calls to a route of no server: what request() does with any call. */
const anyRoute = (answer: FakeAnswer) => offContract(answer, 'a route of no server, for request() alone');

let server: FakeServer;
beforeEach(() => {
  server = installFakeServer();
  window.history.replaceState(null, '', '/dea/#/');
});

describe('request', () => {
  it('echoes the XSRF-TOKEN cookie in X-XSRF-TOKEN on non-GET calls only', async () => {
    document.cookie = 'XSRF-TOKEN=token-123; path=/';
    server.answer('POST any/post', anyRoute(ok(1))).answer('GET any/get', anyRoute(ok(2)));
    await requestResult('any/post', { method: 'POST', body: { a: 1 } });
    await requestResult('any/get');
    const [post] = server.callsTo('POST any/post');
    const [get] = server.callsTo('GET any/get');
    expect(post?.headers.get('X-XSRF-TOKEN')).toBe('token-123');
    expect(post?.headers.get('Content-Type')).toBe('application/json');
    expect(post?.body).toEqual({ a: 1 });
    expect(get?.headers.has('X-XSRF-TOKEN')).toBe(false);
  });

  it('names the chosen language in Accept-Language', async () => {
    server.answer('GET any', anyRoute(ok(1)));
    setRequestLanguage('pt_BR');
    await request('any');
    expect(server.callsTo('GET any')[0]?.headers.get('Accept-Language')).toBe('pt-BR');
  });

  it('goes to the login application with the stored user name and the current URL on 403', async () => {
    window.sessionStorage.setItem('username', 'dana');
    window.sessionStorage.setItem('emergencyCode', 'OLDCODE');
    server.answer('POST userinfo', httpStatus(403));
    await expect(request('userinfo', { method: 'POST' })).rejects.toMatchObject({
      status: 403,
      leavingPage: true,
    });
    expect(navigations()).toEqual([
      `http://host.test/login/?username=dana&ep=${encodeURIComponent('http://host.test/dea/#/')}`,
    ]);
    expect(window.sessionStorage.getItem('emergencyCode')).toBeNull();
  });

  it.each([
    ['/sso/', 'http://host.test/sso/'],
    ['/auth/login/', 'http://host.test/auth/login/'],
    ['//evil.test/', 'http://host.test/login/'],
    ['https://evil.test/', 'http://host.test/login/'],
    [42, 'http://host.test/login/'],
  ])(
    'goes to the login path the 403 answer names (%j), when it is a path of this origin',
    async (loginPath, expected) => {
      const answer = { status: 403, body: { error: 3, message: 'Please log in.', result: { loginPath } } };
      server.answer(
        'POST userinfo',
        typeof loginPath === 'string' && loginPath.startsWith('/')
          ? answer
          : offContract(answer, 'a login path that is no path, as a server should never send'),
      );
      await expect(request('userinfo', { method: 'POST' })).rejects.toMatchObject({
        status: 403,
        leavingPage: true,
      });
      expect(navigations()).toEqual([`${expected}?ep=${encodeURIComponent('http://host.test/dea/#/')}`]);
    },
  );

  it('leaves the user name out of the login URL when none is stored', async () => {
    server.answer('POST userinfo', httpStatus(403));
    await expect(request('userinfo', { method: 'POST' })).rejects.toBeInstanceOf(HttpError);
    expect(navigations()).toEqual([
      `http://host.test/login/?ep=${encodeURIComponent('http://host.test/dea/#/')}`,
    ]);
  });

  it('goes to origin + path + /logout on 401', async () => {
    server.answer('POST userinfo', httpStatus(401));
    await expect(request('userinfo', { method: 'POST' })).rejects.toMatchObject({
      status: 401,
      leavingPage: true,
    });
    expect(navigations()).toEqual(['http://host.test/dea/logout']);
  });

  it('stays on the page for 401 and 403 while offline, or when the call asks so', async () => {
    server.answer('POST a', anyRoute(httpStatus(403)));
    await expect(request('a', { method: 'POST', redirectOnSessionEnd: false })).rejects.toMatchObject({
      leavingPage: false,
    });
    vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    await expect(request('a', { method: 'POST' })).rejects.toMatchObject({ leavingPage: false });
    expect(navigations()).toEqual([]);
  });

  it('does not leave on other statuses', async () => {
    server.answer('GET a', anyRoute(httpStatus(500)));
    await expect(request('a')).rejects.toMatchObject({ status: 500, leavingPage: false });
    expect(navigations()).toEqual([]);
  });

  it('turns a refused connection into a NetworkError', async () => {
    server.answer('GET a', 'network-error');
    await expect(request('a')).rejects.toBeInstanceOf(NetworkError);
  });

  it('turns an envelope error into an EnvelopeError with the server message', async () => {
    server.answer('POST a', anyRoute(envelopeError(148, 'Store full')));
    const failure = await requestResult('a', { method: 'POST' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EnvelopeError);
    expect(failure).toMatchObject({ errorNumber: 148, serverMessage: 'Store full' });
  });
});
