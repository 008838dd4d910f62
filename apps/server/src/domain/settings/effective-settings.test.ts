import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../config.js';
import { addressWithoutSecrets, LOOKS_SECRET, SECRET_SETTINGS } from './effective-settings.js';

/** Settings whose names look secret but hold none, each with why. */
const NOT_SECRET: Readonly<Record<string, string>> = {
  DEA_LDAP_BIND_PASSWORD_FILE: 'the path of the file, not the password',
  DEA_SECRET_FILE: 'the path of the file, not the secret',
  DATABASE_URL_FILE: 'the path of the file, not the address',
  DEA_CONSOLE_OIDC_CLIENT_SECRET_FILE: 'the path of the file, not the secret',
  DEA_OIDC_CLIENT_SECRET_FILE: 'the path of the file, not the secret',
  DEA_PASSWORD_LINK_HOURS: 'a number of hours',
  DEA_VALIDATE_CHECK_CLIENTS: 'address ranges only',
  DEA_SMS_HTTP_SUCCESS_BODY: "a pattern of the gateway's answer",
  DEA_VOICE_HTTP_SUCCESS_BODY: "a pattern of the gateway's answer",
  DEA_TWITTER_HTTP_SUCCESS_BODY: "a pattern of the gateway's answer",
  DEA_PASSWORD_HASH_COST: 'a number',
  DEA_PASSWORD_HASH_CONCURRENCY: 'a number',
  DEA_PASSWORD_HASH_QUEUE: 'a number',
};

describe('the settings view', () => {
  it('has a rule for every setting that may hold a secret, so a new one cannot leak unnoticed', () => {
    for (const name of Object.keys(SETTINGS)) {
      if (!LOOKS_SECRET.test(name)) continue;
      const ruled = SECRET_SETTINGS.has(name) || name.endsWith('_URL') || Object.hasOwn(NOT_SECRET, name);
      expect(ruled, name).toBe(true);
    }
    for (const name of SECRET_SETTINGS) expect(Object.keys(SETTINGS), name).toContain(name);
  });

  it('shows an address without its user, password, query or fragment', () => {
    expect(addressWithoutSecrets('postgres://dea:pw@db.internal:5432/dea?sslmode=require')).toBe(
      'postgres://db.internal:5432/dea (credentials and query hidden)',
    );
    expect(addressWithoutSecrets('ldaps://ldap.example:636')).toBe('ldaps://ldap.example:636');
    expect(addressWithoutSecrets('not a url with secret')).not.toContain('secret');
  });
});
