import { describe, expect, test } from 'vitest';
import {
  authenticatedAt,
  authenticatedWithin,
  factorClassesOf,
  showsSecondFactor,
} from './oidc-assurance.js';

const PAPE = 'http://schemas.openid.net/pape/policies/2007/06/multi-factor';

describe('what an ID token shows of the authentication', () => {
  test.each([
    [['mfa']],
    [['mca']],
    [['pwd', 'mfa']],
    [['pwd', 'otp']],
    [['pwd', 'hwk']],
    [['hwk', 'pin']],
    [['pwd', 'sms']],
    [['kba', 'tel']],
    [['swk', 'face']],
    [['pwd', 'fpt']],
    [['sc', 'pin']],
    [['pop', 'vbm']],
  ])('amr %j shows a second factor', (amr) => {
    expect(showsSecondFactor({ amr }, [])).toBe(true);
  });

  test.each([
    [['pwd', 'geo']],
    [['pwd', 'rba']],
    [['pwd', 'user']],
    [['pwd', 'kba']],
    [['pwd', 'wia']],
    [['PWD', 'pwd']],
    [['pwd', 'pwd']],
    [['pwd', 'pin']],
    [['otp', 'hwk', 'swk']],
    [['face', 'iris']],
    [['MFA']],
    [['pwd', 'OTP']],
    [['geo', 'rba', 'user', 'wia']],
    [['pwd']],
    [[]],
  ])('amr %j shows none', (amr) => {
    expect(showsSecondFactor({ amr }, [])).toBe(false);
  });

  test('no amr, an amr that is no list, and values that are no strings show none', () => {
    expect(showsSecondFactor({}, [])).toBe(false);
    expect(showsSecondFactor({ amr: 'pwd otp' }, [])).toBe(false);
    expect(showsSecondFactor({ amr: ['pwd', 1, { otp: true }] }, [])).toBe(false);
    expect(factorClassesOf(['toString', 'constructor', '__proto__'])).toEqual(new Set());
  });

  test('an acr shows a second factor when the operator named it (or it is PAPE multi-factor)', () => {
    expect(showsSecondFactor({ acr: '2' }, [])).toBe(false);
    expect(showsSecondFactor({ acr: '2' }, ['2'])).toBe(true);
    expect(showsSecondFactor({ acr: '1', amr: ['pwd'] }, ['2'])).toBe(false);
    expect(showsSecondFactor({ acr: PAPE }, [])).toBe(true);
  });

  test('the time of the authentication is auth_time, never later than now; absent or malformed, unknown', () => {
    const now = Date.UTC(2026, 10, 21, 9, 0, 0);
    expect(authenticatedAt({ auth_time: now / 1000 - 600 }, now)).toBe(now - 600_000);
    expect(authenticatedAt({ auth_time: now / 1000 + 600 }, now)).toBe(now);
    expect(authenticatedAt({}, now)).toBeUndefined();
    expect(authenticatedAt({ auth_time: String(now / 1000) }, now)).toBeUndefined();
    expect(authenticatedWithin({ auth_time: now / 1000 - 120 }, now, 120_000)).toBe(true);
    expect(authenticatedWithin({ auth_time: now / 1000 - 121 }, now, 120_000)).toBe(false);
    expect(authenticatedWithin({}, now, 120_000)).toBe(false);
  });
});
