import { describe, expect, it } from 'vitest';
import { signInReturnTarget } from './return-target';

const location = { protocol: 'https:', host: 'host', origin: 'https://host' };

describe('signInReturnTarget', () => {
  it('follows an ep on this host, query and fragment kept', () => {
    expect(signInReturnTarget('https://host/dea/#/', location)).toBe('https://host/dea/#/');
    expect(signInReturnTarget('https://host/dea/?a=1#/x', location)).toBe('https://host/dea/?a=1#/x');
  });

  it.each([null, undefined, '', '//evil.test', 'https://evil.test/dea/', 'javascript:alert(1)'])(
    'goes to the page for %j',
    (ep) => {
      expect(signInReturnTarget(ep, location)).toBe('https://host/dea/');
    },
  );
});
