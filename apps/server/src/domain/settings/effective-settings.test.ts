import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../config.js';
import Type from 'typebox';
import {
  addressCarriesSecret,
  addressWithoutSecrets,
  effectiveSettings,
  LOOKS_SECRET,
  SECRET_SETTINGS,
} from './effective-settings.js';

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

  it('shows a secret only as set or not set, whatever it holds', () => {
    const table = {
      DEA_SECRET: { schema: Type.String({ default: '' }) },
      DEA_WEBHOOKS: { schema: Type.String({ default: '' }) },
    };
    expect(effectiveSettings(table, { DEA_SECRET: 'c2VjcmV0IGtleSBieXRlcw==', DEA_WEBHOOKS: '' })).toEqual([
      { name: 'DEA_SECRET', value: '(set)', isDefault: false, secret: true },
      { name: 'DEA_WEBHOOKS', value: '', isDefault: true, secret: true },
    ]);
  });

  it('shows an address without its credentials, and every other value as text, saying which are defaults', () => {
    const table = {
      DATABASE_URL: { schema: Type.String({ default: '' }) },
      DEA_LDAP_URL: { schema: Type.String({ default: '' }) },
      DEA_PORT: { schema: Type.Integer({ default: 8080 }) },
      DEA_DEMO: { schema: Type.Boolean({ default: false }) },
      DEA_TIME_ZONE: { schema: Type.String({ default: 'UTC' }) },
    };
    const shown = effectiveSettings(table, {
      DATABASE_URL: 'postgres://dea:hunter2@db/dea',
      DEA_LDAP_URL: '',
      DEA_PORT: 8080,
      DEA_DEMO: true,
      DEA_TIME_ZONE: { not: 'a value' },
    });
    expect(shown).toEqual([
      {
        name: 'DATABASE_URL',
        value: 'postgres://db/dea (credentials and query hidden)',
        isDefault: false,
        secret: false,
      },
      { name: 'DEA_LDAP_URL', value: '', isDefault: true, secret: false },
      { name: 'DEA_PORT', value: '8080', isDefault: true, secret: false },
      { name: 'DEA_DEMO', value: 'true', isDefault: false, secret: false },
      { name: 'DEA_TIME_ZONE', value: '', isDefault: false, secret: false },
    ]);
    expect(JSON.stringify(shown)).not.toContain('hunter2');
  });

  it('knows an address that carries a credential: in its user part, its query, or as a libpq keyword', () => {
    for (const text of [
      'postgres://dea:secret@db/dea',
      'https://sms.example.com/send?api_key=abc',
      'https://sms.example.com/send?Access-Token=abc',
      'host=db user=dea password=secret',
      'host=db sslpassword = secret',
    ])
      expect(addressCarriesSecret(text), text).toBe(true);
    for (const text of [
      'postgres://dea@db/dea',
      'https://sms.example.com/send?to=1',
      'host=db user=dea',
      'ldaps://ldap.example:636',
    ])
      expect(addressCarriesSecret(text), text).toBe(false);
  });
});
