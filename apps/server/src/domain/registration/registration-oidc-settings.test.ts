import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { registrationOidcConfigOf } from './registration-oidc-settings.js';
import { testFolder } from '../../testing/test-folder.js';

const base = {
  DEA_OIDC_ISSUER: 'https://login.example.com/realms/staff',
  DEA_OIDC_CLIENT_ID: 'dea-channels',
  DEA_OIDC_CLIENT_SECRET_FILE: '',
  DEA_OIDC_USERNAME_CLAIM: '',
  DEA_OIDC_MFA_ACR_VALUES: ' 2 , gold ',
};

function configOf(changes: Partial<typeof base>) {
  const problems: string[] = [];
  return { config: registrationOidcConfigOf({ ...base, ...changes }, problems), problems };
}

describe("the registration's OpenID settings (the same client rule as the console's)", () => {
  test('off without an issuer; the claim defaults to preferred_username; acr values listed', () => {
    expect(configOf({ DEA_OIDC_ISSUER: '' })).toEqual({ config: undefined, problems: [] });
    const { config, problems } = configOf({});
    expect(problems).toEqual([]);
    expect(config).toMatchObject({
      clientId: 'dea-channels',
      clientSecret: undefined,
      usernameClaim: 'preferred_username',
      mfaAcrValues: ['2', 'gold'],
      insecureLoopback: false,
    });
  });

  test('each bad value is refused naming its own setting', () => {
    expect(configOf({ DEA_OIDC_ISSUER: 'http://login.example.com' }).problems).toEqual([
      expect.stringMatching(/^DEA_OIDC_ISSUER="http:\/\/login\.example\.com": must be the provider's issuer/),
    ]);
    expect(configOf({ DEA_OIDC_ISSUER: 'http://127.0.0.1:4000' }).config?.insecureLoopback).toBe(true);
    expect(configOf({ DEA_OIDC_CLIENT_ID: ' ' }).problems).toEqual([
      'DEA_OIDC_CLIENT_ID: required with DEA_OIDC_ISSUER (the client id registered there)',
    ]);
    const folder = testFolder('registration-oidc');
    const secret = join(folder, 'secret');
    writeFileSync(secret, 's3cret\n');
    chmodSync(secret, 0o600);
    expect(configOf({ DEA_OIDC_CLIENT_SECRET_FILE: secret }).config?.clientSecret).toBe('s3cret');
    expect(configOf({ DEA_OIDC_CLIENT_SECRET_FILE: join(folder, 'missing') }).problems).toEqual([
      expect.stringMatching(/^DEA_OIDC_CLIENT_SECRET_FILE: /),
    ]);
  });
});
