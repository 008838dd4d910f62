import { describe, expect, it } from 'vitest';
import { safeReturnUrl } from './safe-return-url';

const page = { protocol: 'https:', host: 'host' };
const pageWithPort = { protocol: 'http:', host: '127.0.0.1:8080' };

describe('safeReturnUrl', () => {
  it.each([
    ['https://host/login/', 'https://host/login/'],
    ['https://host/login/?username=dana#top', 'https://host/login/?username=dana#top'],
    ['HTTPS://HOST/login/', 'https://host/login/'],
    ['host/login/', 'https://host/login/'],
    ['host', 'https://host/'],
  ])('follows %s on the page host', (candidate, expected) => {
    expect(safeReturnUrl(candidate, page)).toBe(expected);
  });

  it('accepts an IP address with the page port', () => {
    expect(safeReturnUrl('http://127.0.0.1:8080/login/?ep=x', pageWithPort)).toBe(
      'http://127.0.0.1:8080/login/?ep=x',
    );
  });

  it.each([
    // A server behind a TLS proxy it does not trust for X-Forwarded-Proto names its login over http.
    ['http://host/login/', page, 'https://host/login/'],
    ['HTTP://HOST/login/?a=1', page, 'https://host/login/?a=1'],
    ['http://host:8443/login/', { protocol: 'https:', host: 'host:8443' }, 'https://host:8443/login/'],
    // Into TLS from a plain page.
    ['https://127.0.0.1:8080/login/', pageWithPort, 'https://127.0.0.1:8080/login/'],
    ['127.0.0.1:8080/login/', pageWithPort, 'http://127.0.0.1:8080/login/'],
  ])('follows %s on the same host, never leaving TLS', (candidate, from, expected) => {
    expect(safeReturnUrl(candidate, from)).toBe(expected);
  });

  it.each([
    ['http://host:8080/login/', page],
    ['http://host:443/login/', { protocol: 'https:', host: 'host:8443' }],
    ['https://127.0.0.1:8081/login/', pageWithPort],
  ])('refuses %s, another port', (candidate, from) => {
    expect(safeReturnUrl(candidate, from)).toBeUndefined();
  });

  it.each([
    '',
    '//evil.test',
    '//host.evil.test/login',
    '/\\evil.test',
    '\\\\evil.test',
    'https:evil.test',
    'https:/evil.test',
    'https:\\\\evil.test',
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    'javascript://host/%0Aalert(1)',
    'data:text/html,<script>alert(1)</script>',
    'DATA:text/html;base64,PHNjcmlwdD4=',
    'vbscript:msgbox(1)',
    'https://a@evil.test',
    'https://host@evil.test',
    'https://host:443@evil.test/',
    'https://user:pass@host/',
    'https://host.evil.test',
    'https://HOST.EVIL.TEST/login',
    'https://evil.test/host',
    'https://evil.test#@host',
    'https://evil.test?@host',
    'ftp://host/',
    'https://host\\@evil.test',
    'https://host%2eevil.test',
    'https://host%2Fevil.test',
    '%2F%2Fevil.test',
    'https%3A%2F%2Fevil.test',
    'https://%65vil.test',
    'https://evil%2Etest',
    ' https://host/',
    'https://host/\nlogin',
    'https://ho\tst/',
    '/login/',
    'https://host./',
    'http://127.0.0.1:8081/login/',
  ])('refuses %j', (candidate) => {
    const target = candidate.startsWith('http://127.0.0.1') ? pageWithPort : page;
    expect(safeReturnUrl(candidate, target)).toBeUndefined();
  });

  it('refuses a missing value', () => {
    expect(safeReturnUrl(null, page)).toBeUndefined();
    expect(safeReturnUrl(undefined, page)).toBeUndefined();
  });
});
